package dev.idempotency.engine;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Lets one warning through per interval, to whichever thread claims it first, so that a
 * failure that strikes many calls at once is warned of once and the rest can be logged at
 * DEBUG. Thread-safe, without locks.
 */
final class WarningThrottle {

	private final LongSupplier nanoClock;

	private final long intervalNanos;

	private final AtomicLong lastWarningNanos;

	/**
	 * Create a throttle whose first claim succeeds.
	 * @param nanoClock the monotonic clock, in nanoseconds
	 * @param intervalNanos the shortest time between two warnings
	 */
	WarningThrottle(LongSupplier nanoClock, long intervalNanos) {
		this.nanoClock = nanoClock;
		this.intervalNanos = intervalNanos;
		this.lastWarningNanos = new AtomicLong(nanoClock.getAsLong() - intervalNanos);
	}

	/**
	 * Claim the next warning.
	 * @return whether the caller may warn: the last warning is at least an interval old,
	 * and no other thread claimed this one
	 */
	boolean claim() {
		long now = this.nanoClock.getAsLong();
		long last = this.lastWarningNanos.get();
		return now - last >= this.intervalNanos && this.lastWarningNanos.compareAndSet(last, now);
	}

}
