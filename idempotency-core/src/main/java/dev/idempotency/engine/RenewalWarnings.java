package dev.idempotency.engine;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Logs what goes wrong with the renewals of {@link LeaseRenewer}: a renewal that failed,
 * at most once per interval at WARN (the rest at DEBUG), since thousands of them fail at
 * once when the store goes away; one that found its record taken over; one that failed
 * unexpectedly.
 */
final class RenewalWarnings {

	// The category the renewer has always logged under, which users may have configured
	private static final Log logger = LogFactory.getLog(LeaseRenewer.class);

	private static final long WARNING_INTERVAL_SECONDS = 10;

	private final WarningThrottle throttle;

	/**
	 * Create the warnings of a renewer, the first failure logged at WARN.
	 * @param nanoClock the monotonic clock, in nanoseconds, that spaces the warnings
	 */
	RenewalWarnings(LongSupplier nanoClock) {
		this.throttle = new WarningThrottle(nanoClock, TimeUnit.SECONDS.toNanos(WARNING_INTERVAL_SECONDS));
	}

	/**
	 * Log that a renewal could not be sent or was not answered. Runs on a client's I/O
	 * thread: no blocking.
	 * @param attempt the attempt whose lease was not renewed
	 * @param ex why
	 */
	void failed(Attempt attempt, Throwable ex) {
		if (this.throttle.claim()) {
			logger.warn("Could not renew the lease of " + attempt + " (renewals of other attempts may be "
					+ "failing too; further failures are logged at DEBUG for " + WARNING_INTERVAL_SECONDS + " s): "
					+ ex);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Could not renew the lease of " + attempt, ex);
		}
	}

	/**
	 * Log that another attempt took an attempt's record over.
	 * @param attempt the attempt that lost its record
	 */
	void lost(Attempt attempt) {
		logger.warn(attempt + " no longer owns its record: another attempt took it over");
	}

	/**
	 * Log that sending a renewal failed in a way no store failure explains.
	 * @param attempt the attempt whose renewal failed
	 * @param ex the failure
	 */
	void unexpected(Attempt attempt, Throwable ex) {
		logger.error("Lease renewal of " + attempt + " failed unexpectedly", ex);
	}

}
