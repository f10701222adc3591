package dev.idempotency.engine;

import org.jspecify.annotations.Nullable;

/**
 * Wraps each idempotent call as a whole, for tracing. Unlike an
 * {@link IdempotencyListener}, which hears of a call after the fact, an observer is
 * started before the first store request and ended after the last, on the caller's
 * thread, so that whatever it makes current there (a span) is current while the method
 * runs, and the method's own spans nest under it.
 * <p>
 * The engine calls {@link #start} once the key is valid (a call rejected for its key is
 * not observed), then, on the same thread, {@link Call#outcome} once when the outcome is
 * known and {@link Call#end} exactly once. A call of a method whose value arrives later
 * (a {@code CompletionStage} or a {@code Mono}) may instead be {@link Call#detach()
 * detached} from the starting thread once the method has returned its stage (or once a
 * {@code WAIT} begins, or at once when a lazy call starts on an event-loop thread, which
 * it leaves for a thread of the engine's own), then hear its outcome and end on the
 * thread that completes it. So is a call whose method returned inside a Spring-managed
 * transaction that the store does not join: it hears its outcome and ends when that
 * transaction has ended, on the thread that ends it. Each item of a batch
 * ({@link dev.idempotency.IdempotentExecutor#executeAll}) is one call, started and
 * detached at once, since the items' calls overlap; it hears its outcome and ends on the
 * caller's thread before the batch returns. Implementations must be fast and thread-safe;
 * an exception they throw is logged and never breaks the call.
 */
@FunctionalInterface
public interface IdempotencyObserver {

	/**
	 * An observer that observes nothing and allocates nothing per call.
	 */
	IdempotencyObserver NONE = (name, key) -> Call.NONE;

	/**
	 * Start observing a call.
	 * @param name the operation name
	 * @param key the idempotency key, after hashing if it was too long; it identifies a
	 * business request, so it must never become a metric tag
	 * @return the observed call, which the engine ends
	 */
	Call start(String name, String key);

	/**
	 * One observed call.
	 */
	interface Call {

		/**
		 * A call that ignores everything.
		 */
		Call NONE = new Call() {

			@Override
			public void outcome(Outcome outcome) {
			}

			@Override
			public void end(@Nullable Throwable error) {
			}

		};

		/**
		 * Called once, when the outcome is known: before the method's exception
		 * propagates for {@link Outcome#FAILED}, and before the method runs for
		 * {@link Outcome#BYPASSED}.
		 * @param outcome how the call ends
		 */
		void outcome(Outcome outcome);

		/**
		 * Called at most once, on the thread that started the call, when the call goes on
		 * asynchronously: undo here whatever {@link IdempotencyObserver#start} made
		 * current on that thread, since {@link #outcome} and {@link #end} may then be
		 * called on another thread.
		 */
		default void detach() {
		}

		/**
		 * Called once, last: on the thread that started the call, unless the call was
		 * {@link #detach() detached}.
		 * @param error what the call throws to its caller (the method's own exception or
		 * an {@link dev.idempotency.IdempotencyException}), what kept the record of a
		 * call that returned inside a transaction from completing once that transaction
		 * ended (its rollback, or the store's exception), or {@code null}
		 */
		void end(@Nullable Throwable error);

	}

}
