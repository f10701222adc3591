package dev.idempotency.amqp;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.messaging.InProgressBackOff;

/**
 * How long a consumer holds a message before it requeues it.
 * <p>
 * RabbitMQ tells a consumer little about earlier deliveries: a classic queue only sets
 * the {@code redelivered} flag, and a quorum queue's {@code x-delivery-count} counts
 * every return of the message, for whatever reason. What is in progress is a key, so the
 * attempt of the back-off is counted per operation and key: how many deliveries in a row
 * met it in progress here, forgotten once none has for twice the longest delay, and for
 * the least recently seen keys beyond {@value #REMEMBERED_KEYS}. A store that fails is
 * one outage for every message: its attempt is the number of failures in a row, which a
 * message handled without one ends.
 */
final class RedeliveryDelays {

	static final int REMEMBERED_KEYS = 10_000;

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
	 * @return the delay before the message is requeued
	 */
	Duration next(ListenerFailure failure) {
		if (failure.exception() instanceof IdempotencyInProgressException inProgress) {
			return this.backOff.delay(inProgressAttempt(inProgress), inProgress);
		}
		int attempt = this.storeFailures.updateAndGet((failures) -> Math.min(failures + 1, MOST_ATTEMPTS));
		return this.backOff.delay(attempt);
	}

	/**
	 * Note a delivery that reached the store without a failure.
	 */
	void storeAnswered() {
		this.storeFailures.set(0);
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
