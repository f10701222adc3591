package dev.idempotency.engine;

import dev.idempotency.IdempotencyContext;
import org.jspecify.annotations.Nullable;

/**
 * Runs idempotent calls against a store.
 */
public final class IdempotencyEngine {

	private static final ThreadLocal<IdempotencyContext> CURRENT = new ThreadLocal<>();

	/**
	 * Return the attempt running on the current thread.
	 * @return the attempt, or {@code null}
	 */
	public static @Nullable IdempotencyContext currentContext() {
		return CURRENT.get();
	}

}
