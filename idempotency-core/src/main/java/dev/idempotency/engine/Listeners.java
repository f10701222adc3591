package dev.idempotency.engine;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells every listener of an outcome; a listener that throws is logged and skipped, so
 * that observing a call can never break it.
 */
final class Listeners {

	private static final Log logger = LogFactory.getLog(Listeners.class);

	private final IdempotencyListener[] listeners;

	Listeners(List<? extends IdempotencyListener> listeners) {
		this.listeners = listeners.toArray(new IdempotencyListener[0]);
	}

	boolean isEmpty() {
		return this.listeners.length == 0;
	}

	void onStoreOperation(StoreOperation operation, String store, long nanos, boolean succeeded) {
		for (IdempotencyListener listener : this.listeners) {
			try {
				listener.onStoreOperation(operation, store, nanos, succeeded);
			}
			catch (RuntimeException ex) {
				logger.warn("Idempotency listener " + listener + " failed on store operation " + operation, ex);
			}
		}
	}

	void onOutcome(String name, Outcome outcome) {
		for (IdempotencyListener listener : this.listeners) {
			try {
				listener.onOutcome(name, outcome);
			}
			catch (RuntimeException ex) {
				logger.warn("Idempotency listener " + listener + " failed on outcome " + outcome + " of '" + name + "'",
						ex);
			}
		}
	}

}
