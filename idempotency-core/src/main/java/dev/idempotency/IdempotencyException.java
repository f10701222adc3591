package dev.idempotency;

import org.jspecify.annotations.Nullable;

/**
 * Base class of every exception this library throws. The exceptions a method throws
 * itself are never wrapped: they reach the caller unchanged.
 */
public class IdempotencyException extends RuntimeException {

	/**
	 * Create an exception with a message.
	 * @param message the detail message
	 */
	public IdempotencyException(String message) {
		super(message);
	}

	/**
	 * Create an exception with a message and a cause.
	 * @param message the detail message
	 * @param cause the cause
	 */
	public IdempotencyException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
