package dev.idempotency.sample;

/**
 * What charging a payment produced.
 *
 * @param eventId the event that was charged
 * @param ledgerEntry the ledger entry number of the charge
 * @param amountCents the amount charged
 */
public record Receipt(String eventId, long ledgerEntry, long amountCents) {

}
