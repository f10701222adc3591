package dev.idempotency.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * Keeps a back-off on the consumer thread within half of the consumer's
 * {@code max.poll.interval.ms}: a longer one would keep the consumer from polling past
 * that interval, and the consumer would leave its group, its partitions going to another
 * member while it still handles their records. The other half is left for the record's
 * work. The interval is the container's consumer property (a listener's own
 * {@code properties}), else Kafka's default; the first capped delay of each listener is
 * warned of, naming both settings.
 */
final class PollIntervalBound {

	private static final long KAFKA_DEFAULT = Duration.ofMinutes(5).toMillis();

	private final Log logger;

	private final Map<String, Boolean> warned = new ConcurrentHashMap<>();

	PollIntervalBound(Log logger) {
		this.logger = logger;
	}

	long bound(@Nullable MessageListenerContainer container, long delay) {
		long maxPollInterval = maxPollInterval(container);
		long bound = maxPollInterval / 2;
		if (delay <= bound) {
			return delay;
		}
		String listener = (container != null) ? container.getListenerId() : "";
		if (this.warned.putIfAbsent(listener, Boolean.TRUE) == null) {
			this.logger.warn("The in-progress back-off (idempotency.messaging.in-progress-retry.max-interval) asks "
					+ "for a delay of " + delay + " ms, longer than half of max.poll.interval.ms (" + (bound * 2)
					+ " ms) of listener '" + listener + "': delaying " + bound
					+ " ms instead, so that the consumer stays in its group. "
					+ "Lower max-interval, or raise max.poll.interval.ms");
		}
		return Math.max(1, bound);
	}

	// The consumer factory's setting is not visible from here: the auto-configuration
	// checks it against maxInterval at startup
	static long maxPollInterval(@Nullable MessageListenerContainer container) {
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
