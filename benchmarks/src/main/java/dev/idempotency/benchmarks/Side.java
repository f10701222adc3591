package dev.idempotency.benchmarks;

/**
 * Who talks to Redis.
 */
enum Side {

	/**
	 * The {@code @Idempotent} method of a Boot application, through the starter.
	 */
	STARTER,

	/**
	 * The same protocol by hand: see {@link Floor}.
	 */
	FLOOR

}
