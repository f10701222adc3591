package dev.idempotency;

import org.jspecify.annotations.Nullable;

/**
 * The idempotency key could not be evaluated, evaluated to {@code null} or a blank
 * string, or evaluated to a value whose string would differ from call to call (an array,
 * an object whose class does not override {@code toString()}, a set or map without a
 * defined order). The method did not run.
 */
public class IdempotencyKeyException extends IdempotencyException {

	/**
	 * Create an exception with a message.
	 * @param message the detail message, naming the operation and the expression
	 */
	public IdempotencyKeyException(String message) {
		super(message);
	}

	/**
	 * Create an exception with a message and a cause.
	 * @param message the detail message, naming the operation and the expression
	 * @param cause the evaluation failure
	 */
	public IdempotencyKeyException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
