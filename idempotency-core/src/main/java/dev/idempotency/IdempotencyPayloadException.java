package dev.idempotency;

import org.jspecify.annotations.Nullable;

/**
 * The payload of a call could not be evaluated or fingerprinted, so a reused key could
 * not be told from a duplicate. The method did not run.
 */
public class IdempotencyPayloadException extends IdempotencyException {

	/**
	 * Create an exception with a message and a cause.
	 * @param message the detail message, naming the operation
	 * @param cause the failure of the payload expression or the fingerprinter
	 */
	public IdempotencyPayloadException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
