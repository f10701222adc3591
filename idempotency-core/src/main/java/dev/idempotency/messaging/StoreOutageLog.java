package dev.idempotency.messaging;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;

import org.springframework.util.Assert;

/**
 * Logs the deliveries of a listener container that met an unavailable store, each of
 * which is delivered again after a back-off: a WARN with the failure's stack trace at
 * most once a minute, so that an outage is seen without one warning per message and
 * retry, and one line at DEBUG for each of the others.
 * <p>
 * Thread-safe.
 */
public final class StoreOutageLog {

	private static final long WARNING_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final Log logger;

	private final LongSupplier nanoClock;

	private final AtomicLong lastWarningNanos;

	/**
	 * Create a log that writes to the given logger.
	 * @param logger the logger of the integration
	 */
	public StoreOutageLog(Log logger) {
		this(logger, System::nanoTime);
	}

	StoreOutageLog(Log logger, LongSupplier nanoClock) {
		Assert.notNull(logger, "'logger' must not be null");
		this.logger = logger;
		this.nanoClock = nanoClock;
		this.lastWarningNanos = new AtomicLong(nanoClock.getAsLong() - WARNING_INTERVAL_NANOS);
	}

	/**
	 * Log a delivery that met an unavailable store.
	 * @param redelivery what happens to the message, such as "Requeueing a message in 200
	 * ms"
	 * @param failure the store's failure
	 */
	public void failed(String redelivery, Throwable failure) {
		if (claimWarning()) {
			this.logger.warn(redelivery + ": " + failure.getMessage() + ". The idempotency store is unavailable: "
					+ "messages are delivered again until it answers, each logged at DEBUG, with a warning like "
					+ "this one at most once a minute", failure);
		}
		else {
			this.logger.debug(redelivery + ": " + failure.getMessage());
		}
	}

	// One thread warns, and only once the last warning is a minute old
	private boolean claimWarning() {
		long now = this.nanoClock.getAsLong();
		long last = this.lastWarningNanos.get();
		return now - last >= WARNING_INTERVAL_NANOS && this.lastWarningNanos.compareAndSet(last, now);
	}

}
