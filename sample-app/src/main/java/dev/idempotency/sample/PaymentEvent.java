package dev.idempotency.sample;

/**
 * A payment requested by some upstream system, delivered at least once.
 *
 * @param id the event id, the same on every redelivery
 * @param account the account to charge
 * @param amountCents the amount in cents
 */
public record PaymentEvent(String id, String account, long amountCents) {

}
