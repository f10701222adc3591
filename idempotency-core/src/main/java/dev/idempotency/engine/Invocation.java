package dev.idempotency.engine;

import org.jspecify.annotations.Nullable;

/**
 * The work an idempotent call protects: the annotated method or an executor's action.
 */
@FunctionalInterface
public interface Invocation {

	/**
	 * Run the work.
	 * @return its result
	 * @throws Throwable whatever the work throws, passed to the caller unchanged
	 */
	@Nullable Object proceed() throws Throwable;

	/**
	 * Called instead of {@link #proceed()} when the call replays the stored outcome of an
	 * earlier attempt, before that outcome reaches the caller: an HTTP handler marks its
	 * response as replayed here.
	 */
	default void replayed() {
	}

}
