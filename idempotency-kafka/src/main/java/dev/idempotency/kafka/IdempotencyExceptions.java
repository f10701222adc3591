package dev.idempotency.kafka;

import org.jspecify.annotations.Nullable;

/**
 * Finds one of our exceptions in what a listener container reports: the exception the
 * listener threw, wrapped by the container, or a cause of one of the application's.
 */
final class IdempotencyExceptions {

	// Deep enough for any wrapping we have seen, and safe against cause cycles
	private static final int MAX_DEPTH = 16;

	private IdempotencyExceptions() {
	}

	static <T extends Throwable> @Nullable T find(@Nullable Throwable exception, Class<T> type) {
		Throwable candidate = exception;
		for (int depth = 0; candidate != null && depth < MAX_DEPTH; depth++) {
			if (type.isInstance(candidate)) {
				return type.cast(candidate);
			}
			candidate = candidate.getCause();
		}
		return null;
	}

}
