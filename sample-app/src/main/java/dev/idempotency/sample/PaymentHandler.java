package dev.idempotency.sample;

import dev.idempotency.Idempotent;

import org.springframework.stereotype.Service;

/**
 * Handles payment events: the first delivery of an event charges it, every redelivery
 * gets the same receipt back without charging again.
 */
@Service
public class PaymentHandler {

	private final Ledger ledger;

	PaymentHandler(Ledger ledger) {
		this.ledger = ledger;
	}

	@Idempotent(name = "payments.charge", key = "#event.id")
	public Receipt handle(PaymentEvent event) {
		return new Receipt(event.id(), this.ledger.append(event), event.amountCents());
	}

}
