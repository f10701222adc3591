package dev.idempotency.amqp;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.messaging.InProgressBackOff;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.core.Message;

/**
 * How long a consumer holds a message before it requeues it.
 * <p>
 * What is in progress is a key, so the attempt of the back-off is counted per operation
 * and key: how many deliveries in a row met it in progress here, forgotten once none has
 * for twice the longest delay, and for the least recently seen keys beyond
 * {@value #REMEMBERED_KEYS}. That count is this instance's only, so a message that other
 * instances held too (each of several instances starts its count at the first delivery it
 * sees) is also counted by what it carries: the {@value #REQUEUES} header of a copy
 * requeued to the tail of its queue, or else the {@code x-delivery-count} a quorum queue
 * sets (every return of the message, for whatever reason); the attempt is the larger of
 * the two. A store that fails is one outage for every message: its attempt is the number
 * of failures in a row, which a message handled without one ends, or the message's own
 * count if that is larger. Without the latter, an asynchronous listener (whose listener
 * method returns before the store fails) and the messages of other listeners reset the
 * count with every delivery, and a quorum queue with an {@code x-delivery-limit}
 * dead-lettered a message within a few seconds of an outage at the shortest delay.
 */
final class RedeliveryDelays {

	static final int REMEMBERED_KEYS = 10_000;

	/**
	 * The header of a copy requeued to the tail of its queue: how many times the message
	 * was.
	 */
	static final String REQUEUES = "x-idempotency-requeues";

	static final String DELIVERY_COUNT = "x-delivery-count";

	// Far past the longest delay; keeps the exponent of the back-off small
	private static final int MOST_ATTEMPTS = 64;

	private final InProgressBackOff backOff;

	private final long forgetAfterNanos;

	private final Map<String, Attempts> inProgress = new LinkedHashMap<>(64, 0.75f, true) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, Attempts> eldest) {
			return size() > REMEMBERED_KEYS;
		}

	};

	private final AtomicInteger storeFailures = new AtomicInteger();

	RedeliveryDelays(InProgressBackOff backOff) {
		this.backOff = backOff;
		this.forgetAfterNanos = backOff.maxInterval().multipliedBy(2).toNanos();
	}

	/**
	 * Count one more delivery that failed so, and return how long to hold it.
	 * @param failure what the delivery met
	 * @param message the message delivered
	 * @return the delay before the message is requeued
	 */
	Duration next(ListenerFailure failure, @Nullable Message message) {
		if (failure.exception() instanceof IdempotencyInProgressException inProgress) {
			int attempt = Math.max(inProgressAttempt(inProgress),
					Math.min(earlierDeliveries(message) + 1, MOST_ATTEMPTS));
			return this.backOff.delay(attempt, inProgress);
		}
		int failures = this.storeFailures.updateAndGet((count) -> Math.min(count + 1, MOST_ATTEMPTS));
		return this.backOff.delay(Math.max(failures, Math.min(earlierReturns(message) + 1, MOST_ATTEMPTS)));
	}

	/**
	 * Note a delivery that reached the store without a failure.
	 */
	void storeAnswered() {
		this.storeFailures.set(0);
	}

	/**
	 * Return how many times a message was requeued before, by the headers it carries.
	 * @param message the message, or {@code null} for several
	 * @return the count, 0 if it carries none
	 */
	static int earlierDeliveries(@Nullable Message message) {
		if (message == null) {
			return 0;
		}
		Map<String, @Nullable Object> headers = message.getMessageProperties().getHeaders();
		// A header a producer set to what is no count does not hide the broker's
		Object count = headers.get(REQUEUES);
		return count(isCount(count) ? count : headers.get(DELIVERY_COUNT));
	}

	// A store failure requeues at the head, which only the broker counts: a copy once
	// requeued to the tail carries a count of ours that no longer grows
	private static int earlierReturns(@Nullable Message message) {
		if (message == null) {
			return 0;
		}
		Map<String, @Nullable Object> headers = message.getMessageProperties().getHeaders();
		return Math.max(count(headers.get(REQUEUES)), count(headers.get(DELIVERY_COUNT)));
	}

	private static boolean isCount(@Nullable Object count) {
		return count instanceof Number number && number.longValue() >= 0;
	}

	private static int count(@Nullable Object count) {
		return (count instanceof Number number) ? (int) Math.max(0, Math.min(number.longValue(), MOST_ATTEMPTS)) : 0;
	}

	private int inProgressAttempt(IdempotencyInProgressException exception) {
		String id = exception.getName() + ":" + exception.getKey();
		long now = System.nanoTime();
		synchronized (this.inProgress) {
			Attempts last = this.inProgress.get(id);
			int attempt = (last == null || now - last.seenAt() > this.forgetAfterNanos) ? 1
					: Math.min(last.count() + 1, MOST_ATTEMPTS);
			this.inProgress.put(id, new Attempts(attempt, now));
			return attempt;
		}
	}

	private record Attempts(int count, long seenAt) {
	}

}
