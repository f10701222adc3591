package dev.idempotency.engine;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.store.RecordKey;

/**
 * Tells every listener, and the observer, of what happens to calls; one that throws is
 * logged and skipped, so that observing a call can never break it.
 */
final class Listeners {

	private static final Log logger = LogFactory.getLog(Listeners.class);

	private final IdempotencyListener[] listeners;

	private final IdempotencyObserver observer;

	Listeners(List<? extends IdempotencyListener> listeners, IdempotencyObserver observer) {
		this.listeners = listeners.toArray(new IdempotencyListener[0]);
		this.observer = observer;
	}

	/**
	 * Return whether there are no listeners, so that store transitions need no timing.
	 * @return whether there are no listeners
	 */
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

	Call start(RecordKey record) {
		try {
			return this.observer.start(record.name(), record.key());
		}
		catch (RuntimeException ex) {
			logger.warn("Idempotency observer " + this.observer + " failed to start observing " + record, ex);
			return Call.NONE;
		}
	}

	void onOutcome(Call call, String name, Outcome outcome) {
		for (IdempotencyListener listener : this.listeners) {
			try {
				listener.onOutcome(name, outcome);
			}
			catch (RuntimeException ex) {
				logger.warn("Idempotency listener " + listener + " failed on outcome " + outcome + " of '" + name + "'",
						ex);
			}
		}
		try {
			call.outcome(outcome);
		}
		catch (RuntimeException ex) {
			logger.warn(
					"Idempotency observer " + this.observer + " failed on outcome " + outcome + " of '" + name + "'",
					ex);
		}
	}

	void detach(Call call, RecordKey record) {
		try {
			call.detach();
		}
		catch (RuntimeException ex) {
			logger.warn(
					"Idempotency observer " + this.observer + " failed to detach from the caller's thread of " + record,
					ex);
		}
	}

	void end(Call call, RecordKey record, @Nullable Throwable error) {
		try {
			call.end(error);
		}
		catch (RuntimeException ex) {
			logger.warn("Idempotency observer " + this.observer + " failed to end observing " + record, ex);
		}
	}

}
