package dev.idempotency.benchmarks;

/**
 * What the benchmarked method returns: its JSON is 200 bytes for a 16-character payment
 * id.
 *
 * @param paymentId the payment id, which is also the idempotency key
 * @param customer the customer charged
 * @param amountCents the amount, in cents
 * @param currency the ISO currency code
 * @param status the payment status
 * @param settledAt when the payment settled, ISO-8601
 * @param description the statement text
 */
public record Receipt(String paymentId, String customer, long amountCents, String currency, String status,
		String settledAt, String description) {

	static Receipt settled(String paymentId) {
		return new Receipt(paymentId, "cus_4QFJp2mBz8Lk", 129_900, "EUR", "SETTLED", "2025-06-01T12:00:00Z",
				"Annual plan, invoice INV-0417");
	}

}
