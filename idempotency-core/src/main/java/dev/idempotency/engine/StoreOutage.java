package dev.idempotency.engine;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.store.RecordKey;

/**
 * Logs the calls that run unprotected while the store is unavailable
 * ({@code on-store-failure=proceed}) once per outage, not once per call: a WARN with the
 * failure's stack trace for the first, DEBUG for the others, and an INFO when the store
 * answers again. An outage ends with the first acquire that gets an answer.
 * <p>
 * An outage is warned of at most once a minute: a store that fails and answers by turns
 * (a cluster with one shard down, timeouts under load) would otherwise log a WARN with
 * its stack trace, and an INFO, for nearly every call. An outage that starts within a
 * minute of the last warning is logged at DEBUG until the minute is over, then warned of.
 * <p>
 * Thread-safe. While the store answers, a call costs one volatile read.
 */
final class StoreOutage {

	private static final long WARNING_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final Log logger;

	// Set once the warning of an outage is logged, so that its end is logged only then
	private final AtomicBoolean ongoing = new AtomicBoolean();

	private final WarningThrottle throttle;

	/**
	 * Create an outage log under the engine's name, the one users know and configure.
	 * @param nanoClock the monotonic clock, in nanoseconds
	 */
	StoreOutage(LongSupplier nanoClock) {
		this(nanoClock, LogFactory.getLog(IdempotencyEngine.class));
	}

	StoreOutage(LongSupplier nanoClock, Log logger) {
		this.logger = logger;
		this.throttle = new WarningThrottle(nanoClock, WARNING_INTERVAL_NANOS);
	}

	/**
	 * Log a call that runs unprotected because the store failed to acquire its record.
	 * @param record the record of the call
	 * @param ex the store's failure
	 */
	void bypassed(RecordKey record, RuntimeException ex) {
		if (!this.ongoing.get() && this.throttle.claim()) {
			this.logger.warn("Store unavailable for " + record + ": running the method WITHOUT idempotency protection "
					+ "(idempotency.on-store-failure=proceed). Further calls that run unprotected are logged at "
					+ "DEBUG until the store answers again.", ex);
			this.ongoing.set(true);
		}
		else if (this.logger.isDebugEnabled()) {
			this.logger.debug(
					"Store still unavailable for " + record + ": running the method WITHOUT idempotency protection",
					ex);
		}
	}

	/**
	 * Note that the store answered an acquire, which ends an outage.
	 */
	void answered() {
		if (this.ongoing.get() && this.ongoing.compareAndSet(true, false)) {
			this.logger.info("Idempotency store answers again: calls are protected again");
		}
	}

}
