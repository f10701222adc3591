package dev.idempotency.store.dynamodb;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static dev.idempotency.store.dynamodb.Attributes.COMPLETED_STATE;
import static dev.idempotency.store.dynamodb.Attributes.FAILED;
import static dev.idempotency.store.dynamodb.Attributes.IN_PROGRESS;

/**
 * One record's item as a request read it. Every judgement of time takes the caller's time
 * and the clock-skew allowance: an item is taken over only once its lease ended longer
 * ago than the allowance, and treated as absent only once its expiry did.
 */
record StoredItem(String state, long fence, String owner, boolean takeover, long startedAt, long leaseUntil,
		@Nullable Long completedAt, long expiresAt, byte @Nullable [] fingerprint, byte @Nullable [] result,
		@Nullable String reason, @Nullable String failureType, @Nullable String failureMessage) {

	/**
	 * Read an item this store wrote.
	 * @throws NotARecord when it cannot be one, saying why
	 */
	static StoredItem of(Map<String, AttributeValue> item) throws NotARecord {
		ItemReader reader = new ItemReader(item);
		long version = reader.number(Attributes.VERSION);
		if (version != Attributes.FORMAT_VERSION) {
			throw new NotARecord("its format version is " + version);
		}
		String state = reader.string(Attributes.STATE);
		if (!IN_PROGRESS.equals(state) && !COMPLETED_STATE.equals(state) && !FAILED.equals(state)) {
			throw new NotARecord("its state is '" + state + "'");
		}
		long fence = reader.number(Attributes.FENCE);
		if (fence < 1 || fence == Long.MAX_VALUE) {
			// No attempt can follow the largest fence with a larger one
			throw new NotARecord("its fence is " + fence);
		}
		String owner = reader.string(Attributes.OWNER);
		if (owner.isEmpty()) {
			throw new NotARecord("it has no owner");
		}
		StoredItem stored = new StoredItem(state, fence, owner, reader.flag(Attributes.TAKEOVER),
				reader.number(Attributes.STARTED), reader.number(Attributes.LEASE),
				reader.optionalNumber(Attributes.COMPLETED), reader.number(Attributes.EXPIRES),
				reader.optionalBytes(Attributes.FINGERPRINT), reader.optionalBytes(Attributes.RESULT),
				reader.optionalString(Attributes.REASON), reader.optionalString(Attributes.FAILURE_TYPE),
				reader.optionalString(Attributes.FAILURE_MESSAGE));
		String inconsistency = stored.inconsistency();
		if (inconsistency != null) {
			throw new NotARecord(inconsistency);
		}
		return stored;
	}

	private @Nullable String inconsistency() {
		boolean completed = isCompleted();
		if (completed != (this.completedAt != null)) {
			return "it is " + this.state + (completed ? " without" : " with") + " a completion time";
		}
		if (!completed) {
			return (this.result != null || this.reason != null || this.failureType != null)
					? "it is " + this.state + " with a stored outcome" : null;
		}
		int outcomes = ((this.result != null) ? 1 : 0) + ((this.reason != null) ? 1 : 0)
				+ ((this.failureType != null) ? 1 : 0);
		if (outcomes != 1) {
			return "it is COMPLETED with " + outcomes + " of a result, a reason why there is none and a failure";
		}
		if (this.failureType != null && this.failureType.isEmpty()) {
			return "its stored failure has no type";
		}
		return (this.failureMessage != null && this.failureType == null) ? "it has a failure message without a type"
				: null;
	}

	boolean isInProgress() {
		return IN_PROGRESS.equals(this.state);
	}

	boolean isCompleted() {
		return COMPLETED_STATE.equals(this.state);
	}

	boolean isFailed() {
		return FAILED.equals(this.state);
	}

	/**
	 * Whether the item is past its expiry, allowance included, as if it were absent.
	 */
	boolean isExpired(long now, long skew) {
		return this.expiresAt <= now - skew;
	}

	/**
	 * Whether an attempt holds the item: in progress, and its lease ended less than the
	 * allowance ago (or has not ended).
	 */
	boolean isHeld(long now, long skew) {
		return isInProgress() && this.leaseUntil > now - skew;
	}

	/**
	 * The time left on the lease, or while within the allowance past it, the time left
	 * until it can be taken over; at least a millisecond.
	 */
	Duration leaseRemaining(long now, long skew) {
		long until = (this.leaseUntil > now) ? this.leaseUntil : this.leaseUntil + skew;
		return Duration.ofMillis(Math.max(1, until - now));
	}

	boolean isOwnedBy(String owner, long fence) {
		return this.owner.equals(owner) && this.fence == fence;
	}

	/**
	 * Whether a request's fingerprint shows the key reused for another payload: a failed
	 * attempt left no effect, and a missing fingerprint on either side cannot be
	 * compared.
	 */
	boolean isReusedBy(byte @Nullable [] requested) {
		return !isFailed() && this.fingerprint != null && this.fingerprint.length > 0 && requested != null
				&& requested.length > 0 && !Arrays.equals(this.fingerprint, requested);
	}

	StoredResult storedResult() {
		if (this.failureType != null) {
			return StoredResult.failure(this.failureType, this.failureMessage);
		}
		if (this.reason != null) {
			return new StoredResult(new byte[0], this.reason);
		}
		return StoredResult.of((this.result != null) ? this.result : new byte[0]);
	}

	IdempotencyRecord toRecord(RecordKey key) {
		return new IdempotencyRecord(key, RecordState.valueOf(this.state), this.fence,
				Instant.ofEpochMilli(this.startedAt), Instant.ofEpochMilli(this.leaseUntil),
				(this.completedAt != null) ? Instant.ofEpochMilli(this.completedAt) : null,
				isCompleted() && this.result != null, Instant.ofEpochMilli(this.expiresAt));
	}

	/**
	 * An item that this store cannot have written.
	 */
	static final class NotARecord extends Exception {

		NotARecord(String why) {
			super(why, null, false, false);
		}

	}

}
