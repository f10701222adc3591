package dev.idempotency.engine;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;

/**
 * Waits for another attempt by polling acquire, which replays its result once it
 * completes, hands the record over once it fails, and takes it over once its lease
 * expires. Polls start fast (most attempts are short) and back off, never sleeping past
 * the other attempt's lease or the deadline.
 */
final class InProgressWaiter {

	private static final long FIRST_PAUSE_MILLIS = 2;

	private static final long MAX_PAUSE_MILLIS = 100;

	/**
	 * Poll until the other attempt is no longer in progress, or the timeout runs out, or
	 * {@code stop} says so.
	 * @return the last result, and when its acquire was sent on {@code nanoClock}
	 */
	Claim await(IdempotencyStore store, RecordKey record, AcquireRequest request, InProgress first, Duration timeout,
			LongSupplier nanoClock, BooleanSupplier stop) {
		long sentNanos = nanoClock.getAsLong();
		long deadline = sentNanos + timeout.toNanos();
		long pause = firstPause();
		AcquireResult result = first;
		while (result instanceof InProgress inProgress) {
			long leftNanos = deadline - nanoClock.getAsLong();
			if (leftNanos <= 0 || stop.getAsBoolean()) {
				return new Claim(inProgress, sentNanos);
			}
			try {
				Thread.sleep(pauseMillis(pause, leftNanos, inProgress));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return new Claim(inProgress, sentNanos);
			}
			pause = nextPause(pause);
			sentNanos = nanoClock.getAsLong();
			result = store.acquire(record, request);
		}
		return new Claim(result, sentNanos);
	}

	/**
	 * Return how long to pause before the next poll: never past the other attempt's lease
	 * or the deadline.
	 * @param pause the pause planned, in milliseconds
	 * @param leftNanos the time left until the deadline, positive
	 * @param inProgress what the last poll found
	 * @return the pause, at least a millisecond
	 */
	static long pauseMillis(long pause, long leftNanos, InProgress inProgress) {
		// Rounded up: truncated, the last pause would give up to a millisecond early
		long left = (leftNanos + 999_999) / 1_000_000;
		return Math.max(1, Math.min(Math.min(pause, left), inProgress.leaseRemaining().toMillis() + 1));
	}

	static long firstPause() {
		return FIRST_PAUSE_MILLIS;
	}

	static long nextPause(long pause) {
		return Math.min(pause * 2, MAX_PAUSE_MILLIS);
	}

}
