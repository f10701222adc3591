package dev.idempotency.test;

import java.time.Duration;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;

/**
 * An attempt that a test made directly on the store and then abandoned, as a process that
 * crashed or froze would: its lease has run out. Until another attempt takes the record
 * over, it still owns it; after that it is a zombie, and the store refuses everything it
 * tries.
 *
 * @see StoreScenarios
 */
public final class AbandonedAttempt {

	private static final Duration RETENTION = Duration.ofHours(1);

	private final IdempotencyStore store;

	private final RecordKey key;

	private final String owner;

	private final long fence;

	AbandonedAttempt(IdempotencyStore store, RecordKey key, String owner, long fence) {
		this.store = store;
		this.key = key;
		this.owner = owner;
		this.fence = fence;
	}

	/**
	 * Return the record this attempt acquired.
	 * @return the operation name and key
	 */
	public RecordKey key() {
		return this.key;
	}

	/**
	 * Return the owner token of this attempt.
	 * @return the owner token
	 */
	public String owner() {
		return this.owner;
	}

	/**
	 * Return the fence number this attempt acquired the record with: the one it would
	 * have passed to downstream writes, which a write of the attempt that took over (with
	 * a higher fence) must win against.
	 * @return the fence number
	 */
	public long fence() {
		return this.fence;
	}

	/**
	 * Try to complete the record as this attempt, as a zombie that finally finishes
	 * would. Completed, the record holds no result to replay: later calls get an
	 * {@link dev.idempotency.IdempotencyReplayException}.
	 * @return {@code true} if the store accepted it (nobody took over), {@code false} if
	 * it refused it
	 */
	public boolean complete() {
		return this.store.complete(this.key, this.owner, this.fence,
				StoredResult.unreplayable("completed by an abandoned attempt of a test"), RETENTION);
	}

	/**
	 * Try to release the record as this attempt, as a zombie whose method finally throws
	 * would.
	 * @return {@code true} if the store accepted it (nobody took over), {@code false} if
	 * it refused it
	 */
	public boolean release() {
		return this.store.release(this.key, this.owner, this.fence, RETENTION);
	}

	/**
	 * Try to renew the lease as this attempt, as a zombie that wakes up would.
	 * @param lease the new lease
	 * @return {@code true} if the store accepted it (nobody took over), {@code false} if
	 * it refused it
	 */
	public boolean renew(Duration lease) {
		return this.store.renew(this.key, this.owner, this.fence, lease, RETENTION);
	}

	@Override
	public String toString() {
		return "attempt " + this.owner + " on " + this.key + " with fence " + this.fence;
	}

}
