package dev.idempotency.engine;

import java.time.Duration;
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
	 * Poll until the other attempt is no longer in progress, or the timeout runs out.
	 * @return the last result, and when its acquire was sent on {@code nanoClock}
	 */
	Claim await(IdempotencyStore store, RecordKey record, AcquireRequest request, InProgress first, Duration timeout,
			LongSupplier nanoClock) {
		long sentNanos = nanoClock.getAsLong();
		long deadline = sentNanos + timeout.toNanos();
		long pause = FIRST_PAUSE_MILLIS;
		AcquireResult result = first;
		while (result instanceof InProgress inProgress) {
			long leftNanos = deadline - nanoClock.getAsLong();
			if (leftNanos <= 0) {
				return new Claim(inProgress, sentNanos);
			}
			// Rounded up: truncated, the last sleep would give up to a millisecond early
			long left = (leftNanos + 999_999) / 1_000_000;
			long sleep = Math.min(Math.min(pause, left), inProgress.leaseRemaining().toMillis() + 1);
			try {
				Thread.sleep(Math.max(1, sleep));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return new Claim(inProgress, sentNanos);
			}
			pause = Math.min(pause * 2, MAX_PAUSE_MILLIS);
			sentNanos = nanoClock.getAsLong();
			result = store.acquire(record, request);
		}
		return new Claim(result, sentNanos);
	}

}
