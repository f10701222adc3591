package dev.idempotency.engine;

/**
 * How an idempotent call ended, as counted by metrics.
 */
public enum Outcome {

	/**
	 * The method ran for a new key (or after a failed attempt) and its result was stored.
	 */
	EXECUTED,

	/**
	 * An earlier attempt had completed, so the method did not run: its stored result was
	 * returned or its stored failure thrown, or
	 * {@link dev.idempotency.IdempotencyReplayException} thrown if that outcome cannot be
	 * replayed.
	 */
	REPLAYED,

	/**
	 * The method ran after taking over an attempt whose lease had expired.
	 */
	RECOVERED,

	/**
	 * Another attempt held a live lease: rejected, or waited in vain.
	 */
	IN_PROGRESS,

	/**
	 * The method threw; the record was released for a retry, or completed with the
	 * failure when its type is one the operation replays.
	 */
	FAILED,

	/**
	 * The key was reused with a different payload.
	 */
	KEY_REUSE,

	/**
	 * The attempt lost ownership before it could complete.
	 */
	LOCK_LOST,

	/**
	 * The store failed and the call failed with it.
	 */
	STORE_ERROR,

	/**
	 * The store failed at acquire and the method ran unprotected.
	 */
	BYPASSED,

	/**
	 * The call was refused before the store was asked: its key was missing, blank or
	 * unstable, or its payload could not be fingerprinted.
	 */
	INVALID;

	private final String tag = name().toLowerCase(java.util.Locale.ROOT);

	/**
	 * Return the lowercase name used as a metric tag, such as {@code key_reuse}.
	 * @return the tag value
	 */
	public String tag() {
		return this.tag;
	}

}
