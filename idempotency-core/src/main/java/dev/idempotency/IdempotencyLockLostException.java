package dev.idempotency;

/**
 * The attempt ran the method but no longer owned the record when it tried to complete it:
 * its lease expired and another attempt took over (a "zombie"). The result of this
 * attempt was not stored, so the successor's result stands. Downstream writes should be
 * fenced with {@link IdempotencyContext#fence()} so that the zombie's effects are refused
 * as well.
 * <p>
 * Also thrown, without running the method, for an attempt whose lease was too short to
 * start it: a third of its lock timeout or less was left once the store's reply came (a
 * slow reply, such as one waiting for replica acknowledgements), or a batch item's lease
 * ran out while earlier items ran, and a renewal sent then did not confirm a new lease in
 * time. Its record is released, so the next delivery runs the method at once; nothing ran
 * twice.
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

	/**
	 * Create an exception with a message of its own, such as for an attempt whose lease
	 * was too short to start its method.
	 * @param message the detail message
	 */
	public IdempotencyLockLostException(String message) {
		super(message);
	}

}
