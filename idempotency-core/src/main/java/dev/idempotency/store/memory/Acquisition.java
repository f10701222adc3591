package dev.idempotency.store.memory;

import java.time.Clock;
import java.time.Duration;
import java.util.function.BiFunction;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import org.jspecify.annotations.Nullable;

/**
 * The acquire transition of one call, applied inside the map's atomic compute; it
 * remembers what it found for the caller.
 */
final class Acquisition implements BiFunction<RecordKey, @Nullable MemoryRecord, MemoryRecord> {

	private static final AcquireResult KEY_REUSED = new AcquireResult.KeyReused();

	private final AcquireRequest request;

	private final byte @Nullable [] fingerprint;

	private final Clock clock;

	@Nullable AcquireResult result;

	Acquisition(AcquireRequest request, Clock clock) {
		this.request = request;
		byte[] fingerprint = request.fingerprint();
		// Like the Redis store, an empty fingerprint is no fingerprint; the copy keeps a
		// caller's later changes out of the store.
		this.fingerprint = (fingerprint != null && fingerprint.length > 0) ? fingerprint.clone() : null;
		this.clock = clock;
	}

	@Override
	public MemoryRecord apply(RecordKey key, @Nullable MemoryRecord current) {
		long now = this.clock.millis();
		if (current == null || current.isExpired(now)) {
			return acquired(1, false, now);
		}
		if (current.isReusedBy(this.fingerprint)) {
			this.result = KEY_REUSED;
			return current;
		}
		if (current.state() == RecordState.COMPLETED) {
			this.result = new AcquireResult.Completed(current.fence(), current.replay());
			return current;
		}
		if (current.state() == RecordState.IN_PROGRESS && current.owner().equals(this.request.owner())) {
			// A re-sent acquire finds its own attempt: same fence, lease started again
			this.result = new AcquireResult.Acquired(current.fence(), current.takeover());
			return current.renew(now, this.request.lease().toMillis(), this.request.retention().toMillis());
		}
		if (current.isLeaseLive(now)) {
			this.result = new AcquireResult.InProgress(current.fence(), Duration.ofMillis(current.lease() - now));
			return current;
		}
		return acquired(current.fence() + 1, current.state() == RecordState.IN_PROGRESS, now);
	}

	private MemoryRecord acquired(long fence, boolean takeover, long now) {
		this.result = new AcquireResult.Acquired(fence, takeover);
		return MemoryRecord.inProgress(fence, this.request.owner(), takeover, now, this.request.lease().toMillis(),
				this.request.retention().toMillis(), this.fingerprint);
	}

}
