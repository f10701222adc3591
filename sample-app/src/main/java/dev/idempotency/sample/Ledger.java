package dev.idempotency.sample;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The side effect that must happen once per payment: a ledger entry, written by a call to
 * a payment provider that takes a few milliseconds. That latency is the window in which
 * concurrent deliveries of one payment meet.
 */
@Component
public class Ledger {

	private final AtomicLong entries = new AtomicLong();

	private final Duration latency;

	Ledger(@Value("${sample.ledger.latency:10ms}") Duration latency) {
		this.latency = latency;
	}

	/**
	 * Charge an account and write the ledger entry.
	 * @param account the account to charge
	 * @param amountCents the amount in cents
	 * @return the number of the new ledger entry
	 */
	public long charge(String account, long amountCents) {
		try {
			Thread.sleep(this.latency.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return this.entries.incrementAndGet();
	}

	/**
	 * Return how many entries were written, that is how many charges were made.
	 * @return the number of entries
	 */
	public long entries() {
		return this.entries.get();
	}

}
