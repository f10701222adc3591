package dev.idempotency.kafka;

import java.time.Clock;
import java.util.Map;

import org.springframework.kafka.retrytopic.DefaultDestinationTopicResolver;

/**
 * Sends a record whose exception no retry can fix (a reused key, say) straight to the
 * dead-letter topic, instead of through the retry topics, where every attempt would fail
 * the same way. spring-kafka replaces the classification when it configures the
 * resolver's fatal exceptions, so these are added again each time.
 */
final class IdempotencyDestinationTopicResolver extends DefaultDestinationTopicResolver {

	IdempotencyDestinationTopicResolver(Clock clock) {
		super(clock);
		addNotRetryable();
	}

	@Override
	public void setClassifications(Map<Class<? extends Throwable>, Boolean> classifications, boolean defaultValue) {
		super.setClassifications(classifications, defaultValue);
		addNotRetryable();
	}

	private void addNotRetryable() {
		IdempotencyBackOffs.NOT_RETRYABLE.forEach(this::addNotRetryableExceptions);
	}

}
