package dev.idempotency.store;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Outcome stored by a completed attempt: the encoded result, the reason why there is none
 * to replay, or a failure that duplicates get as an exception (see
 * {@link dev.idempotency.Idempotent#replayFailures()}).
 *
 * @param body the encoded result; empty for a {@code void} method, when unreplayable, and
 * for a failure
 * @param unreplayableReason why the result cannot be replayed, or {@code null} when it
 * can or when this is a failure
 * @param failureType the name of the exception class a duplicate gets, or {@code null}
 * when this is not a failure
 * @param failureMessage the message of that exception, or {@code null} when it has none
 * or this is not a failure
 */
public record StoredResult(byte[] body, @Nullable String unreplayableReason, @Nullable String failureType,
		@Nullable String failureMessage) {

	private static final byte[] EMPTY = {};

	/**
	 * Create a stored outcome.
	 * @param body the encoded result; empty for a {@code void} method, when unreplayable,
	 * and for a failure
	 * @param unreplayableReason why the result cannot be replayed, or {@code null} when
	 * it can or when this is a failure
	 * @param failureType the name of the exception class a duplicate gets, or
	 * {@code null} when this is not a failure
	 * @param failureMessage the message of that exception, or {@code null} when it has
	 * none or this is not a failure
	 * @throws IllegalArgumentException if the body is {@code null}, or the components
	 * contradict each other (a body with an unreplayable reason or a failure, a failure
	 * message without a failure type, an empty failure type)
	 */
	public StoredResult {
		Assert.notNull(body, "'body' must not be null");
		Assert.isTrue(unreplayableReason == null || body.length == 0, "an unreplayable result must have no body");
		Assert.isTrue(failureType != null || failureMessage == null, "only a failure has a failure message");
		Assert.isTrue(failureType == null || (body.length == 0 && unreplayableReason == null),
				"a failure has no body and no unreplayable reason");
		Assert.isTrue(failureType == null || !failureType.isEmpty(), "'failureType' must not be empty");
	}

	/**
	 * Create a result or the reason why there is none to replay.
	 * @param body the encoded result
	 * @param unreplayableReason why the result cannot be replayed, or {@code null} when
	 * it can
	 */
	public StoredResult(byte[] body, @Nullable String unreplayableReason) {
		this(body, unreplayableReason, null, null);
	}

	/**
	 * Create a replayable result.
	 * @param body the encoded result
	 * @return the stored result
	 */
	public static StoredResult of(byte[] body) {
		return new StoredResult(body, null);
	}

	/**
	 * Create a result that records completion without a replayable body.
	 * @param reason why the result cannot be replayed
	 * @return the stored result
	 */
	public static StoredResult unreplayable(String reason) {
		Assert.hasText(reason, "'reason' must not be empty");
		return new StoredResult(EMPTY, reason);
	}

	/**
	 * Create a failure: the method threw an exception that duplicates get too.
	 * @param type the name of the exception class duplicates get
	 * @param message the message of the exception, any text, or {@code null} for none
	 * @return the stored result
	 */
	public static StoredResult failure(String type, @Nullable String message) {
		Assert.hasText(type, "'type' must not be empty");
		return new StoredResult(EMPTY, null, type, message);
	}

	/**
	 * Return whether a duplicate can replay this result as a value: {@code false} when it
	 * is not replayable or is a {@link #isFailure() failure}.
	 * @return whether a body was stored
	 */
	public boolean isReplayable() {
		return this.unreplayableReason == null && this.failureType == null;
	}

	/**
	 * Return whether this is a failure, which duplicates get as an exception.
	 * @return whether a failure type is stored
	 */
	public boolean isFailure() {
		return this.failureType != null;
	}

}
