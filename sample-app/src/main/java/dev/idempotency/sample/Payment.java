package dev.idempotency.sample;

import java.time.Instant;

/**
 * A payment made through the HTTP API, returned to the first request and replayed to its
 * retries.
 *
 * @param id the payment id
 * @param account the account charged
 * @param amountCents the amount charged, in cents
 * @param ledgerEntry the ledger entry of the charge
 * @param createdAt when the charge was made
 */
public record Payment(String id, String account, long amountCents, long ledgerEntry, Instant createdAt) {

}
