package dev.idempotency;

import org.jspecify.annotations.Nullable;

/**
 * The store failed: it was unreachable, timed out, or held data under one of our keys
 * that is not an idempotency record. The cause is the client's exception, if any.
 */
public class IdempotencyStoreException extends IdempotencyException {

	/**
	 * Create an exception with a message.
	 * @param message the detail message
	 */
	public IdempotencyStoreException(String message) {
		super(message);
	}

	/**
	 * Create an exception with a message and the client's exception.
	 * @param message the detail message
	 * @param cause the client's exception
	 */
	public IdempotencyStoreException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
