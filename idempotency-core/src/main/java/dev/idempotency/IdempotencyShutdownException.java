package dev.idempotency;

/**
 * The engine is shutting down and refused the call: the method did not run, and the
 * record is not held (a record the call had taken was released). Another instance, or
 * this one after a restart, can run it: like every {@link IdempotencyStoreException},
 * listener containers deliver it again and HTTP clients get a 503.
 */
public class IdempotencyShutdownException extends IdempotencyStoreException {

	/**
	 * Create an exception for an operation and key.
	 * @param name the operation name
	 * @param key the idempotency key
	 */
	public IdempotencyShutdownException(String name, String key) {
		super("Key '" + key + "' of operation '" + name
				+ "' was refused: the idempotency engine is shutting down, and the method did not run");
	}

}
