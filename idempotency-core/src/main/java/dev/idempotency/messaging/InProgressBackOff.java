package dev.idempotency.messaging;

import java.time.Duration;

import dev.idempotency.IdempotencyInProgressException;

import org.springframework.util.Assert;

/**
 * How long a listener container waits before it delivers again a message whose
 * idempotency key another attempt holds: growing from {@code initialInterval} by
 * {@code multiplier} per attempt up to {@code maxInterval}, and never longer than the
 * other attempt's lease has left
 * ({@link IdempotencyInProgressException#getRetryAfter()}), when the redelivery can take
 * over if that attempt has died. Such a message is retried for as long as the other
 * attempt runs, never acknowledged: it may still fail.
 *
 * @param initialInterval the delay before the first redelivery
 * @param multiplier the factor by which each delay grows, at least 1
 * @param maxInterval the longest delay
 */
public record InProgressBackOff(Duration initialInterval, double multiplier, Duration maxInterval) {

	private static final Duration SHORTEST = Duration.ofMillis(1);

	/**
	 * The defaults: 100 ms, doubling up to 5 s.
	 */
	public static final InProgressBackOff DEFAULT = new InProgressBackOff(Duration.ofMillis(100), 2,
			Duration.ofSeconds(5));

	/**
	 * Create a back-off.
	 * @param initialInterval the delay before the first redelivery
	 * @param multiplier the factor by which each delay grows, at least 1
	 * @param maxInterval the longest delay
	 * @throws IllegalArgumentException if the initial interval is shorter than one
	 * millisecond, the multiplier is less than 1, or the longest delay is shorter than
	 * the initial interval
	 */
	public InProgressBackOff {
		Assert.isTrue(initialInterval.compareTo(SHORTEST) >= 0, "'initialInterval' must be at least 1 ms");
		Assert.isTrue(multiplier >= 1, "'multiplier' must be at least 1");
		Assert.isTrue(maxInterval.compareTo(initialInterval) >= 0,
				"'maxInterval' must not be shorter than 'initialInterval'");
	}

	/**
	 * Return the delay before a redelivery, bounded by {@code maxInterval} only: for a
	 * redelivery after a store failure, or one whose other attempt's lease is not known.
	 * @param attempt how many times the message has failed so, from 1
	 * @return the delay, at least 1 ms
	 */
	public Duration delay(int attempt) {
		Assert.isTrue(attempt >= 1, "'attempt' must be at least 1");
		double grown = this.initialInterval.toMillis() * Math.pow(this.multiplier, attempt - 1);
		return Duration.ofMillis((long) Math.min(grown, this.maxInterval.toMillis()));
	}

	/**
	 * Return the delay before a redelivery.
	 * @param attempt how many times the message has met another attempt in progress, from
	 * 1
	 * @param exception what the last delivery met
	 * @return the delay, at least 1 ms
	 */
	public Duration delay(int attempt, IdempotencyInProgressException exception) {
		Duration delay = delay(attempt);
		if (exception.getRetryAfter().compareTo(delay) < 0) {
			delay = exception.getRetryAfter();
		}
		return (delay.compareTo(SHORTEST) < 0) ? SHORTEST : delay;
	}

}
