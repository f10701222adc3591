package dev.idempotency.store;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Outcome stored by a completed attempt: either the encoded result, or the reason why
 * there is none to replay.
 *
 * @param body the encoded result; empty for a {@code void} method or when unreplayable
 * @param unreplayableReason why the result cannot be replayed, or {@code null} when it
 * can
 */
public record StoredResult(byte[] body, @Nullable String unreplayableReason) {

	private static final byte[] EMPTY = {};

	public StoredResult {
		Assert.notNull(body, "'body' must not be null");
		Assert.isTrue(unreplayableReason == null || body.length == 0, "an unreplayable result must have no body");
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
	 * Return whether a duplicate can replay this result.
	 * @return whether a body was stored
	 */
	public boolean isReplayable() {
		return this.unreplayableReason == null;
	}

}
