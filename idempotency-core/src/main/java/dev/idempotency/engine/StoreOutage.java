package dev.idempotency.engine;

import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.store.RecordKey;

/**
 * Logs the calls that run unprotected while the store is unavailable
 * ({@code on-store-failure=proceed}) once per outage, not once per call: a WARN with the
 * failure's stack trace for the first, DEBUG for the others, and an INFO when the store
 * answers again. An outage ends with the first acquire that gets an answer.
 * <p>
 * Thread-safe. While the store answers, a call costs one volatile read.
 */
final class StoreOutage {

	// Under the engine's name: the one users know and configure.
	private static final Log logger = LogFactory.getLog(IdempotencyEngine.class);

	private final AtomicBoolean ongoing = new AtomicBoolean();

	/**
	 * Log a call that runs unprotected because the store failed to acquire its record.
	 * @param record the record of the call
	 * @param ex the store's failure
	 */
	void bypassed(RecordKey record, RuntimeException ex) {
		if (this.ongoing.compareAndSet(false, true)) {
			logger.warn("Store unavailable for " + record + ": running the method WITHOUT idempotency protection "
					+ "(idempotency.on-store-failure=proceed). Further calls that run unprotected are logged at "
					+ "DEBUG until the store answers again.", ex);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug(
					"Store still unavailable for " + record + ": running the method WITHOUT idempotency protection",
					ex);
		}
	}

	/**
	 * Note that the store answered an acquire, which ends an outage.
	 */
	void answered() {
		if (this.ongoing.get() && this.ongoing.compareAndSet(true, false)) {
			logger.info("Idempotency store answers again: calls are protected again");
		}
	}

}
