package dev.idempotency.engine;

/**
 * What a call does when the store cannot be reached to acquire the record.
 */
public enum StoreFailurePolicy {

	/**
	 * Throw {@link dev.idempotency.IdempotencyStoreException} before the method runs.
	 */
	FAIL,

	/**
	 * Run the method unprotected, log a warning and count the call as bypassed.
	 */
	PROCEED

}
