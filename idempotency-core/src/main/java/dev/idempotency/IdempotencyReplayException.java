package dev.idempotency;

/**
 * A duplicate found the operation completed, but its result cannot be replayed: it could
 * not be encoded or exceeded {@code idempotency.max-result-size} when it was stored, or
 * the stored bytes no longer decode to the method's return type. The method did not run
 * again.
 */
public class IdempotencyReplayException extends IdempotencyException {

	/**
	 * Create an exception with a message.
	 * @param message the detail message, saying why
	 */
	public IdempotencyReplayException(String message) {
		super(message);
	}

	/**
	 * Create an exception with a message and a cause.
	 * @param message the detail message, saying why
	 * @param cause the decoding failure
	 */
	public IdempotencyReplayException(String message, Throwable cause) {
		super(message, cause);
	}

}
