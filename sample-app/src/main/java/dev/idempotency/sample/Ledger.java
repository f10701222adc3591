package dev.idempotency.sample;

import java.util.concurrent.atomic.AtomicLong;

import org.springframework.stereotype.Component;

/**
 * The side effect that must happen once per payment: a ledger entry.
 */
@Component
public class Ledger {

	private final AtomicLong entries = new AtomicLong();

	long append(PaymentEvent event) {
		return this.entries.incrementAndGet();
	}

	long entries() {
		return this.entries.get();
	}

}
