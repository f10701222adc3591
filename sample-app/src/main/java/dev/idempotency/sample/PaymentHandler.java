package dev.idempotency.sample;

import dev.idempotency.Idempotent;

import org.springframework.stereotype.Service;

/**
 * Handles payment events from a broker that delivers at least once: the first delivery of
 * an event charges it, every redelivery gets the same receipt back without charging
 * again, and a redelivery that arrives while the first is still charging fails with
 * {@link dev.idempotency.IdempotencyInProgressException} so that the broker delivers it
 * again later.
 */
@Service
public class PaymentHandler {

	private final Ledger ledger;

	PaymentHandler(Ledger ledger) {
		this.ledger = ledger;
	}

	/**
	 * Charge a payment event once.
	 * @param event the delivered event
	 * @return the receipt of the charge, the same for every delivery of the event
	 */
	@Idempotent(name = "payments.charge", key = "#event.id")
	public Receipt handle(PaymentEvent event) {
		return new Receipt(event.id(), this.ledger.charge(event.account(), event.amountCents()), event.amountCents());
	}

}
