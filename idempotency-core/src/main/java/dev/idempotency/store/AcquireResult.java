package dev.idempotency.store;

import java.time.Duration;

/**
 * What {@link IdempotencyStore#acquire} found and did.
 */
public sealed interface AcquireResult {

	/**
	 * The caller now owns the record: there was none, it had failed, or its lease had
	 * expired and was taken over.
	 *
	 * @param fence the fence number of the new attempt
	 * @param takeover whether an expired in-progress attempt was taken over
	 */
	record Acquired(long fence, boolean takeover) implements AcquireResult {
	}

	/**
	 * Another attempt owns the record and its lease is live.
	 *
	 * @param fence the fence number of the other attempt
	 * @param leaseRemaining time left on its lease, on the store's clock
	 */
	record InProgress(long fence, Duration leaseRemaining) implements AcquireResult {
	}

	/**
	 * The operation completed: its stored outcome is returned.
	 *
	 * @param fence the fence number of the attempt that completed it
	 * @param result the stored outcome
	 */
	record Completed(long fence, StoredResult result) implements AcquireResult {
	}

	/**
	 * The record was created with a different payload fingerprint; nothing changed.
	 */
	record KeyReused() implements AcquireResult {
	}

}
