package dev.idempotency;

/**
 * The idempotent attempt running on the current thread, available inside an
 * {@link Idempotent} method or an {@link IdempotentExecutor} action. For a method that
 * returns a {@code CompletionStage} or a {@code Mono}, only while the method runs until
 * it has returned its stage (and, for a {@code Mono}, while it is subscribed to): code
 * that runs later on other threads does not see it, so read what it needs first.
 */
public interface IdempotencyContext {

	/**
	 * Return the attempt running on the current thread.
	 * @return the current attempt
	 * @throws IllegalStateException when no idempotent method is running on this thread
	 */
	static IdempotencyContext current() {
		IdempotencyContext context = IdempotencyContextHolder.get();
		if (context == null) {
			throw new IllegalStateException(
					"No @Idempotent method or IdempotentExecutor action is running on this thread");
		}
		return context;
	}

	/**
	 * Return whether an idempotent attempt is running on the current thread.
	 * @return whether {@link #current()} would succeed
	 */
	static boolean isActive() {
		return IdempotencyContextHolder.get() != null;
	}

	/**
	 * Return the operation name.
	 * @return the name
	 */
	String name();

	/**
	 * Return the idempotency key, after hashing if it was longer than
	 * {@code idempotency.max-key-length}.
	 * @return the key
	 */
	String key();

	/**
	 * Return the fence number of this attempt: it grows by one each time an expired
	 * attempt is taken over and never goes down while the record lives. Pass it to
	 * downstream writes as a fencing token so that a zombie's late writes are refused.
	 * @return the fence number
	 */
	long fence();

	/**
	 * Return whether this attempt still holds its lease, as far as it knows. It turns
	 * {@code false} when a renewal found the record owned by another attempt, and as soon
	 * as the end of the last lease the store confirmed has passed on this JVM's monotonic
	 * clock (counted from when the acquire or renewal was sent, so never later than the
	 * store's own judgement): a store that hangs or cannot be reached cannot keep it
	 * {@code true}.
	 * @return whether the lease is held
	 */
	boolean isLeaseHeld();

}
