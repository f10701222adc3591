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

	/**
	 * Return whether the caller sees the call only through the future it returns, never
	 * whether that is complete on return, as for the subscription of a {@code Mono}. Such
	 * a call, started on an event-loop thread, acquires and starts its work on one of the
	 * engine's own threads instead of blocking the event loop for a store round trip; any
	 * other call starts on the calling thread, so that a replay returns an
	 * already-completed future.
	 * @return whether the call may start on another thread
	 */
	default boolean isLazy() {
		return false;
	}

}
