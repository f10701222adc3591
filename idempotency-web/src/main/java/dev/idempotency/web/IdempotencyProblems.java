package dev.idempotency.web;

/**
 * The stable {@code type} URIs of the RFC 9457 problem responses that
 * {@link IdempotencyProblemAdvice} maps the idempotency exceptions to, and the names of
 * the HTTP headers of idempotent requests. Clients may rely on the URIs; they identify
 * the problem and are not meant to be dereferenced.
 */
public final class IdempotencyProblems {

	/**
	 * Type of a 400 response: the idempotency key is missing, blank or not valid
	 * ({@link dev.idempotency.IdempotencyKeyException}).
	 */
	public static final String INVALID_KEY = "https://idempotency.dev/problems/invalid-key";

	/**
	 * Type of a 409 response with {@code Retry-After}: another request with the same key
	 * is still being processed ({@link dev.idempotency.IdempotencyInProgressException}).
	 */
	public static final String IN_PROGRESS = "https://idempotency.dev/problems/in-progress";

	/**
	 * Type of a 422 response: the key was already used with another request body
	 * ({@link dev.idempotency.IdempotencyKeyReuseException}).
	 */
	public static final String KEY_REUSED = "https://idempotency.dev/problems/key-reused";

	/**
	 * Type of a 503 response: the idempotency store is unavailable
	 * ({@link dev.idempotency.IdempotencyStoreException}); the request was not processed.
	 */
	public static final String STORE_UNAVAILABLE = "https://idempotency.dev/problems/store-unavailable";

	/**
	 * Type of a 500 response without {@code Retry-After}: the request was processed, so
	 * it may have taken effect, but its outcome could not be recorded
	 * ({@link dev.idempotency.IdempotencyCompletionException}).
	 */
	public static final String OUTCOME_UNKNOWN = "https://idempotency.dev/problems/outcome-unknown";

	/**
	 * Type of a 500 response: the first request with the key succeeded, but its stored
	 * response cannot be replayed, such as one that exceeded
	 * {@code idempotency.max-result-size}
	 * ({@link dev.idempotency.IdempotencyReplayException}).
	 */
	public static final String UNREPLAYABLE_RESULT = "https://idempotency.dev/problems/unreplayable-result";

	/**
	 * Default name of the request header that carries the idempotency key.
	 */
	public static final String KEY_HEADER = "Idempotency-Key";

	/**
	 * Response header, with the value {@code true}, of every replayed response.
	 */
	public static final String REPLAYED_HEADER = "Idempotent-Replayed";

	private IdempotencyProblems() {
	}

}
