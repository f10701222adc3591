package dev.idempotency.benchmarks;

import org.jspecify.annotations.Nullable;

/**
 * One side of the harness: something that makes a call idempotent on the shared
 * {@code redis-server}, measured interleaved with the others.
 */
interface Contender extends AutoCloseable {

	Side side();

	/**
	 * Make one call with an idempotency key, as an application would.
	 * @param id the idempotency key
	 * @return what the caller gets back, {@code null} where the contender gives a
	 * duplicate nothing
	 * @throws Exception if the call fails, which fails the run
	 */
	@Nullable Object call(String id) throws Exception;

	/**
	 * Check once, before anything is measured, that a call does what this contender
	 * promises: a duplicate is detected, a replay returns what was stored.
	 * @param reference a key the starter completed, with the bytes it stored
	 * @throws IllegalStateException if it does not
	 * @throws Exception if a call fails
	 */
	void check(Reference reference) throws Exception;

	/**
	 * Describe what one call does, for the report.
	 * @return the protocol of this contender
	 */
	Protocol protocol();

	@Override
	default void close() {
	}

	/**
	 * A key completed by the starter, for the contenders that share its records.
	 *
	 * @param starter the starter's {@code @Idempotent} bean
	 * @param id a key the starter completed
	 * @param body the encoded result the starter stored for it
	 */
	record Reference(Payments starter, String id, byte[] body) {

	}

	/**
	 * What one call of a contender does, in words, for the report.
	 *
	 * @param what what the contender is and how the harness drives it
	 * @param newKey the Redis round trips of a call with a new key
	 * @param duplicate the Redis round trips of a call with a completed key
	 * @param duplicateGets what a duplicate caller gets back
	 * @param failures what happens to a call in flight, on a crash or on a race
	 */
	record Protocol(String what, String newKey, String duplicate, String duplicateGets, String failures) {

	}

}
