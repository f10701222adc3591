package dev.idempotency.engine;

/**
 * Hears how idempotent calls end and how long store transitions take, for metrics and
 * logs. Implementations must be fast and thread-safe; an exception they throw is logged
 * and never breaks the call.
 */
public interface IdempotencyListener {

	/**
	 * Called once per call, when its outcome is known.
	 * @param name the operation name
	 * @param outcome how the call ended
	 */
	default void onOutcome(String name, Outcome outcome) {
	}

	/**
	 * Called after every store transition the engine makes.
	 * @param operation the transition
	 * @param store the store type, such as {@code redis}
	 * @param nanos how long it took
	 * @param succeeded whether it returned (whatever its answer) rather than threw
	 */
	default void onStoreOperation(StoreOperation operation, String store, long nanos, boolean succeeded) {
	}

}
