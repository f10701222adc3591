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
 * expires, pausing between polls as {@link PollPauses} says.
 */
final class InProgressWaiter {

	/**
	 * Poll until the other attempt is no longer in progress, or the timeout runs out, or
	 * {@code stop} says so.
	 * @return the last result, and when its acquire was sent on {@code nanoClock}
	 */
	Claim await(IdempotencyStore store, RecordKey record, AcquireRequest request, InProgress first, Duration timeout,
			LongSupplier nanoClock, BooleanSupplier stop) {
		long sentNanos = nanoClock.getAsLong();
		long deadline = sentNanos + timeout.toNanos();
		long pause = PollPauses.first();
		AcquireResult result = first;
		while (result instanceof InProgress inProgress) {
			long leftNanos = deadline - nanoClock.getAsLong();
			if (leftNanos <= 0 || stop.getAsBoolean()) {
				return new Claim(inProgress, sentNanos);
			}
			try {
				Thread.sleep(PollPauses.millis(pause, leftNanos, inProgress));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return new Claim(inProgress, sentNanos);
			}
			pause = PollPauses.next(pause);
			sentNanos = nanoClock.getAsLong();
			result = store.acquire(record, request);
		}
		return new Claim(result, sentNanos);
	}

}
