package dev.idempotency.engine;

import java.time.Duration;

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

	AcquireResult await(IdempotencyStore store, RecordKey record, AcquireRequest request, InProgress first,
			Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		long pause = FIRST_PAUSE_MILLIS;
		AcquireResult result = first;
		while (result instanceof InProgress inProgress) {
			long leftNanos = deadline - System.nanoTime();
			if (leftNanos <= 0) {
				return inProgress;
			}
			// Rounded up: truncated, the last sleep would give up to a millisecond early
			long left = (leftNanos + 999_999) / 1_000_000;
			long sleep = Math.min(Math.min(pause, left), inProgress.leaseRemaining().toMillis() + 1);
			try {
				Thread.sleep(Math.max(1, sleep));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return inProgress;
			}
			pause = Math.min(pause * 2, MAX_PAUSE_MILLIS);
			result = store.acquire(record, request);
		}
		return result;
	}

}
