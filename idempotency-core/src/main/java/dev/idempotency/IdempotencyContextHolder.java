package dev.idempotency;

import org.jspecify.annotations.Nullable;

/**
 * Holds the {@link IdempotencyContext} of the attempt running on each thread, for
 * {@link IdempotencyContext#current()}. The engine sets it around the method it runs and
 * restores the outer one afterwards; for a method that returns a {@code CompletionStage}
 * or a {@code Mono}, only around the synchronous part of the call, until the method has
 * returned its stage. Integrations that run an attempt's work on another thread may do
 * the same there.
 */
public final class IdempotencyContextHolder {

	private static final ThreadLocal<IdempotencyContext> CURRENT = new ThreadLocal<>();

	private IdempotencyContextHolder() {
	}

	/**
	 * Return the context of the attempt running on the current thread.
	 * @return the context, or {@code null} when none is running
	 */
	public static @Nullable IdempotencyContext get() {
		return CURRENT.get();
	}

	/**
	 * Make a context the current thread's, until {@link #restore} with the value
	 * returned.
	 * @param context the context of the attempt about to run
	 * @return the context it replaces, or {@code null}
	 */
	public static @Nullable IdempotencyContext set(IdempotencyContext context) {
		IdempotencyContext outer = CURRENT.get();
		CURRENT.set(context);
		return outer;
	}

	/**
	 * Restore the context that {@link #set} replaced.
	 * @param outer the value {@link #set} returned
	 */
	public static void restore(@Nullable IdempotencyContext outer) {
		if (outer != null) {
			CURRENT.set(outer);
		}
		else {
			CURRENT.remove();
		}
	}

}
