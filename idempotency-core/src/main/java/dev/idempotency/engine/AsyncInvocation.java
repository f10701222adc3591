package dev.idempotency.engine;

import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * The work of an asynchronous idempotent call: the annotated method that returns a
 * {@link CompletionStage} (a {@code Mono} is adapted to one), whose value arrives later.
 */
@FunctionalInterface
public interface AsyncInvocation {

	/**
	 * Start the work: call the method, and for a {@code Mono}, subscribe to it.
	 * @return the stage of its value; {@code null} counts as a stage completed with
	 * {@code null}
	 * @throws Throwable whatever the method throws before its stage exists
	 */
	@Nullable CompletionStage<?> start() throws Throwable;

	/**
	 * Called instead of {@link #start()} when the call replays the stored outcome of an
	 * earlier attempt, before that outcome reaches the caller.
	 */
	default void replayed() {
	}

}
