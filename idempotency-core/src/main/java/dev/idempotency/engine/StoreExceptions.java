package dev.idempotency.engine;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.RecordKey;

/**
 * Makes the exception that tells a caller of a failed store transition: the store's own
 * {@link IdempotencyStoreException}, or one around any other failure that names the
 * transition and the record.
 */
final class StoreExceptions {

	private StoreExceptions() {
	}

	/**
	 * Return the exception that tells the caller of a failed store transition.
	 * @param transition the transition, such as {@code "acquire"}
	 * @param record the record of the call
	 * @param ex the store's failure
	 * @return the failure itself if it is an {@link IdempotencyStoreException}, else one
	 * around it
	 */
	static IdempotencyStoreException of(String transition, RecordKey record, RuntimeException ex) {
		if (ex instanceof IdempotencyStoreException storeException) {
			return storeException;
		}
		return new IdempotencyStoreException("Store failed to " + transition + " " + record + ": " + ex.getMessage(),
				ex);
	}

}
