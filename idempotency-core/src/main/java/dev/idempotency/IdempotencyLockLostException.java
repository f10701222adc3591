package dev.idempotency;

/**
 * The attempt ran the method but no longer owned the record when it tried to complete it:
 * its lease expired and another attempt took over (a "zombie"). The result of this
 * attempt was not stored, so the successor's result stands. Downstream writes should be
 * fenced with {@link IdempotencyContext#fence()} so that the zombie's effects are refused
 * as well.
 */
public class IdempotencyLockLostException extends IdempotencyException {

	/**
	 * Create an exception for an operation, key and fence.
	 * @param name the operation name
	 * @param key the idempotency key
	 * @param fence the fence number this attempt held
	 */
	public IdempotencyLockLostException(String name, String key, long fence) {
		super("Attempt with fence " + fence + " of operation '" + name + "' lost the record for key '" + key
				+ "' before completing: its result was not stored");
	}

}
