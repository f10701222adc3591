package dev.idempotency.autoconfigure;

import java.time.Duration;

import dev.idempotency.messaging.InProgressBackOff;

/**
 * Back-off before a message whose key another attempt holds is delivered again, bound
 * from {@code idempotency.messaging.in-progress-retry}. Each delay is also never longer
 * than the other attempt's lease has left.
 *
 * @see IdempotencyMessagingProperties#getInProgressRetry()
 */
public class IdempotencyInProgressRetryProperties {

	/**
	 * Delay before the first redelivery.
	 */
	private Duration initialInterval = InProgressBackOff.DEFAULT.initialInterval();

	/**
	 * Factor by which each delay grows.
	 */
	private double multiplier = InProgressBackOff.DEFAULT.multiplier();

	/**
	 * Longest delay.
	 */
	private Duration maxInterval = InProgressBackOff.DEFAULT.maxInterval();

	public Duration getInitialInterval() {
		return this.initialInterval;
	}

	public void setInitialInterval(Duration initialInterval) {
		this.initialInterval = initialInterval;
	}

	public double getMultiplier() {
		return this.multiplier;
	}

	public void setMultiplier(double multiplier) {
		this.multiplier = multiplier;
	}

	public Duration getMaxInterval() {
		return this.maxInterval;
	}

	public void setMaxInterval(Duration maxInterval) {
		this.maxInterval = maxInterval;
	}

	/**
	 * Return these settings as a back-off.
	 * @return the back-off
	 * @throws IllegalArgumentException if the settings contradict each other
	 */
	public InProgressBackOff toBackOff() {
		return new InProgressBackOff(this.initialInterval, this.multiplier, this.maxInterval);
	}

}
