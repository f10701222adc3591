package dev.idempotency.engine;

import dev.idempotency.store.AcquireResult.InProgress;

/**
 * How long the waiters for another attempt pause between two polls of acquire: briefly at
 * first (most attempts are short), then twice as long each time up to a cap, and never
 * past the other attempt's lease or the deadline.
 */
final class PollPauses {

	private static final long FIRST_PAUSE_MILLIS = 2;

	private static final long MAX_PAUSE_MILLIS = 100;

	private PollPauses() {
	}

	static long first() {
		return FIRST_PAUSE_MILLIS;
	}

	static long next(long pause) {
		return Math.min(pause * 2, MAX_PAUSE_MILLIS);
	}

	/**
	 * Return how long to pause before the next poll: never past the other attempt's lease
	 * or the deadline.
	 * @param pause the pause planned, in milliseconds
	 * @param leftNanos the time left until the deadline, positive
	 * @param inProgress what the last poll found
	 * @return the pause, at least a millisecond
	 */
	static long millis(long pause, long leftNanos, InProgress inProgress) {
		// Rounded up: truncated, the last pause would give up to a millisecond early
		long left = (leftNanos + 999_999) / 1_000_000;
		return Math.max(1, Math.min(Math.min(pause, left), inProgress.leaseRemaining().toMillis() + 1));
	}

}
