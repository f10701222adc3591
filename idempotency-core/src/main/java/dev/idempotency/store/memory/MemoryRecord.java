package dev.idempotency.store.memory;

import java.time.Instant;
import java.util.Arrays;

import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import org.jspecify.annotations.Nullable;

/**
 * One immutable record of {@link InMemoryIdempotencyStore}; a transition replaces it.
 * Times are epoch milliseconds of the store's clock; {@code completed} is 0 until
 * completion; {@code takeover} says whether the attempt took over an expired one, so that
 * an acquire re-sent by the same owner reports it again. Byte arrays are never shared
 * with callers.
 */
record MemoryRecord(RecordState state, long fence, String owner, boolean takeover, long started, long lease,
		long completed, byte @Nullable [] fingerprint, @Nullable StoredResult result, long expiresAt) {

	static MemoryRecord inProgress(long fence, String owner, boolean takeover, long now, long lease, long retention,
			byte @Nullable [] fingerprint) {
		return new MemoryRecord(RecordState.IN_PROGRESS, fence, owner, takeover, now, plus(now, lease), 0, fingerprint,
				null, plus(plus(now, lease), retention));
	}

	MemoryRecord complete(long now, StoredResult result, long retention) {
		StoredResult copy = copy(result);
		return new MemoryRecord(RecordState.COMPLETED, this.fence, this.owner, this.takeover, this.started, this.lease,
				now, this.fingerprint, copy, plus(now, retention));
	}

	MemoryRecord release(long now, long retention) {
		return new MemoryRecord(RecordState.FAILED, this.fence, this.owner, this.takeover, this.started, this.lease, 0,
				this.fingerprint, null, plus(now, retention));
	}

	/**
	 * Start the lease again from now, keeping the record for retention past it, like
	 * acquire: an in-progress record must outlive its lease for fences to keep rising.
	 */
	MemoryRecord renew(long now, long lease, long retention) {
		long newLease = plus(now, lease);
		return new MemoryRecord(this.state, this.fence, this.owner, this.takeover, this.started, newLease, 0,
				this.fingerprint, null, plus(newLease, retention));
	}

	boolean isExpired(long now) {
		return this.expiresAt <= now;
	}

	boolean isLeaseLive(long now) {
		return this.state == RecordState.IN_PROGRESS && this.lease > now;
	}

	boolean isOwnedBy(String owner, long fence) {
		return this.owner.equals(owner) && this.fence == fence;
	}

	/**
	 * Whether a request's fingerprint shows that the key is reused for another payload. A
	 * failed attempt left no effect behind, and a missing fingerprint on either side
	 * cannot be compared.
	 */
	boolean isReusedBy(byte @Nullable [] requested) {
		return this.state != RecordState.FAILED && this.fingerprint != null && requested != null
				&& !Arrays.equals(this.fingerprint, requested);
	}

	StoredResult replay() {
		StoredResult result = this.result;
		if (result == null) {
			throw new IllegalStateException("A completed record has a result");
		}
		return copy(result);
	}

	private static StoredResult copy(StoredResult result) {
		return new StoredResult(result.body().clone(), result.unreplayableReason(), result.failureType(),
				result.failureMessage());
	}

	IdempotencyRecord toRecord(RecordKey key) {
		return new IdempotencyRecord(key, this.state, this.fence, Instant.ofEpochMilli(this.started),
				Instant.ofEpochMilli(this.lease), (this.completed != 0) ? Instant.ofEpochMilli(this.completed) : null,
				this.result != null && this.result.isReplayable(), Instant.ofEpochMilli(this.expiresAt));
	}

	private static long plus(long now, long millis) {
		long sum = now + millis;
		return (sum < now) ? Long.MAX_VALUE : sum;
	}

}
