package dev.idempotency.kafka;

import java.time.Duration;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * Reads the {@code max.poll.interval.ms} of a listener container's consumers: the
 * container's consumer property (a listener's own {@code properties}), in any of the
 * types spring-kafka accepts for it, else Kafka's default.
 */
final class MaxPollIntervals {

	private static final long KAFKA_DEFAULT = Duration.ofMinutes(5).toMillis();

	private MaxPollIntervals() {
	}

	// The consumer factory's setting is not visible from here: the auto-configuration
	// checks it against maxInterval at startup
	static long of(@Nullable MessageListenerContainer container) {
		if (container == null) {
			return KAFKA_DEFAULT;
		}
		return millis(container.getContainerProperties()
			.getKafkaConsumerProperties()
			.get(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG));
	}

	// The types spring-kafka accepts for it
	static long millis(@Nullable Object value) {
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
