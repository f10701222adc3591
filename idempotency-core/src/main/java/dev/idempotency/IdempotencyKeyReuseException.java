package dev.idempotency;

/**
 * The key was already used with a different payload: the payload fingerprint stored with
 * the record differs from this call's. The method did not run.
 *
 * @see Idempotent#payload()
 */
public class IdempotencyKeyReuseException extends IdempotencyException {

	/**
	 * Create an exception for an operation and key.
	 * @param name the operation name
	 * @param key the idempotency key
	 */
	public IdempotencyKeyReuseException(String name, String key) {
		super("Key '" + key + "' of operation '" + name + "' was already used with a different payload");
	}

}
