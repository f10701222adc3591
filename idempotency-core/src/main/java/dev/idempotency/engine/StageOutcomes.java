package dev.idempotency.engine;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

/**
 * Takes the outcome of the stage an asynchronous method returned exactly once: from the
 * stage, or from the caller's cancellation of its future when the cancellation does not
 * reach the stage.
 */
final class StageOutcomes {

	private StageOutcomes() {
	}

	/**
	 * Take the outcome of a stage once: from the stage, or from the caller's cancellation
	 * when the stage does not end with it. A stage that a cancellation cannot reach (one
	 * that is not a CompletableFuture, or whose toCompletableFuture() is a copy, such as
	 * a minimalCompletionStage()) would otherwise keep the record renewed, and the call
	 * observed, for as long as its work runs: for ever if it never ends. Its late outcome
	 * is then dropped, never recorded over the release.
	 * @param stage the method's stage, or {@code null} for a method that returned none
	 * @param caller the future the caller got, whose cancellation cancels the stage
	 * @param outcome what to do with the outcome: the value, or the failure unwrapped
	 * from a {@link CompletionException}
	 */
	static void follow(@Nullable CompletionStage<?> stage, CompletableFuture<?> caller,
			BiConsumer<@Nullable Object, @Nullable Throwable> outcome) {
		if (stage == null) {
			outcome.accept(null, null);
			return;
		}
		AtomicBoolean taken = new AtomicBoolean();
		stage.whenComplete((value, failure) -> {
			if (taken.compareAndSet(false, true)) {
				outcome.accept(value, unwrap(failure));
			}
		});
		// Registered after the stage's own callback, so that a stage that the
		// cancellation ends releases its record through it
		caller.whenComplete((value, failure) -> {
			// A stage that ended before the cancellation (its callback may not have
			// run yet) keeps its outcome: the value arrived, the effect happened
			if (caller.isCancelled() && !cancel(stage) && taken.compareAndSet(false, true)) {
				outcome.accept(null, new CancellationException("The caller cancelled the call"));
			}
		});
	}

	// Return whether the stage is done, by this cancellation or before it
	private static boolean cancel(CompletionStage<?> stage) {
		try {
			CompletableFuture<?> future = stage.toCompletableFuture();
			boolean cancelled = future.cancel(true);
			if (future == stage) {
				return future.isDone();
			}
			// A copy, done without this cancellation only if the stage had ended
			return !cancelled && future.isDone();
		}
		catch (UnsupportedOperationException ex) {
			// A stage that cannot be cancelled
			return false;
		}
	}

	// A stage that depends on a failed one fails with a CompletionException around the
	// failure: the caller gets the failure itself, as from a synchronous method.
	private static @Nullable Throwable unwrap(@Nullable Throwable failure) {
		if (failure instanceof CompletionException && failure.getCause() != null) {
			return failure.getCause();
		}
		return failure;
	}

}
