package dev.idempotency;

import org.jspecify.annotations.Nullable;

/**
 * The method ran, but the store failed to confirm that its outcome was recorded, even
 * after retrying while the attempt still held its lease: the effect has happened and the
 * record may not say so. Unless a command that timed out got through after all, the
 * record stays {@code IN_PROGRESS} until its lease runs out; the next delivery then takes
 * it over and runs the method again, with a higher {@link IdempotencyContext#fence()
 * fence}. Callers that can tell whether the effect happened (a downstream read) should do
 * so before retrying. The cause is the store's last failure.
 */
public class IdempotencyCompletionException extends IdempotencyStoreException {

	/**
	 * Create an exception with a message and the store's last failure.
	 * @param message the detail message
	 * @param cause the store's last failure
	 */
	public IdempotencyCompletionException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
