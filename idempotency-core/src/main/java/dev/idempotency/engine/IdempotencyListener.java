package dev.idempotency.engine;

/**
 * Hears how idempotent calls end, for metrics and logs. Implementations must be fast and
 * thread-safe; an exception they throw is logged and never breaks the call.
 */
@FunctionalInterface
public interface IdempotencyListener {

	/**
	 * Called once per call, when its outcome is known.
	 * @param name the operation name
	 * @param outcome how the call ended
	 */
	void onOutcome(String name, Outcome outcome);

}
