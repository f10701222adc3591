package dev.idempotency.sample;

/**
 * The body of {@code POST /payments}.
 *
 * @param account the account to charge
 * @param amountCents the amount in cents
 */
public record PayRequest(String account, long amountCents) {

}
