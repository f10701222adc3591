package dev.idempotency.kafka;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * Keeps a back-off on the consumer thread within half of the consumer's
 * {@code max.poll.interval.ms}: a longer one would keep the consumer from polling past
 * that interval, and the consumer would leave its group, its partitions going to another
 * member while it still handles their records. The other half is left for the record's
 * work. The interval is read by {@link MaxPollIntervals}; the first capped delay of each
 * listener is warned of, naming both settings.
 */
final class PollIntervalBound {

	private final Log logger;

	private final Map<String, Boolean> warned = new ConcurrentHashMap<>();

	PollIntervalBound(Log logger) {
		this.logger = logger;
	}

	long bound(@Nullable MessageListenerContainer container, long delay) {
		long maxPollInterval = MaxPollIntervals.of(container);
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

}
