package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.jspecify.annotations.Nullable;

import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.kafka.core.ConsumerFactory;

/**
 * Refuses an in-progress back-off whose longest delay is more than half of the
 * application's Kafka consumers' {@code max.poll.interval.ms}: the consumer thread sleeps
 * through each delay, and a consumer that does not poll within that interval leaves its
 * group. A listener's own {@code max.poll.interval.ms}, which the consumer factory does
 * not know, is dealt with at run time: the delays of its records are capped at half of
 * it.
 */
final class MaxPollIntervalCheck {

	private static final String PROPERTY = "idempotency.messaging.in-progress-retry.max-interval";

	private static final long KAFKA_DEFAULT = Duration.ofMinutes(5).toMillis();

	private MaxPollIntervalCheck() {
	}

	static void check(InProgressBackOff backOff, @Nullable ConsumerFactory<?, ?> consumerFactory) {
		if (consumerFactory == null) {
			return;
		}
		long maxPollInterval = millis(
				consumerFactory.getConfigurationProperties().get(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG));
		if (backOff.maxInterval().toMillis() > maxPollInterval / 2) {
			throw new InvalidConfigurationPropertyValueException(PROPERTY, backOff.maxInterval(),
					"must be at most half of the Kafka consumers' max.poll.interval.ms (" + maxPollInterval
							+ " ms: spring.kafka.consumer.max-poll-interval or "
							+ "spring.kafka.consumer.properties.max.poll.interval.ms), since a consumer sleeps "
							+ "through each delay and one that does not poll within that interval leaves its group. "
							+ "Lower " + PROPERTY + ", or raise max.poll.interval.ms");
		}
	}

	// The types the Kafka client accepts for it
	private static long millis(@Nullable Object value) {
		if (value instanceof Duration duration) {
			return duration.toMillis();
		}
		if (value instanceof Number number) {
			return number.longValue();
		}
		if (value instanceof String text) {
			try {
				return Long.parseLong(text.trim());
			}
			catch (NumberFormatException ex) {
				return KAFKA_DEFAULT;
			}
		}
		return KAFKA_DEFAULT;
	}

}
