package dev.idempotency.benchmarks;

import dev.idempotency.Idempotent;

/**
 * The benchmarked bean: one {@code @Idempotent} method that does nothing but build its
 * receipt, so that what is measured is the starter and Redis.
 */
public class Payments {

	/**
	 * Name of the operation, part of every Redis key.
	 */
	static final String OPERATION = "bench.charge";

	/**
	 * Charge a payment once per payment id.
	 * @param paymentId the payment id
	 * @return the receipt
	 */
	@Idempotent(name = OPERATION, key = "#paymentId")
	public Receipt charge(String paymentId) {
		return Receipt.settled(paymentId);
	}

}
