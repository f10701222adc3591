package dev.idempotency.kafka;

import java.time.Clock;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.kafka.listener.KafkaConsumerBackoffManager;
import org.springframework.kafka.retrytopic.DeadLetterPublishingRecovererFactory;
import org.springframework.kafka.retrytopic.DestinationTopicResolver;
import org.springframework.kafka.retrytopic.ListenerContainerFactoryConfigurer;
import org.springframework.kafka.retrytopic.RetryTopicComponentFactory;
import org.springframework.kafka.retrytopic.RetryTopicConfigurationSupport;
import org.springframework.util.Assert;

/**
 * The components of spring-kafka's retry topics ({@code @RetryableTopic}, a
 * {@code RetryTopicConfiguration} bean) with the rules of
 * {@link IdempotencyKafkaErrorHandling}, which the error handler that retry topics put on
 * their containers would otherwise not know:
 * <ul>
 * <li>{@link IdempotencyInProgressException} and {@link IdempotencyStoreException}: the
 * record is retried in place, on the topic where it met them (the main topic or a retry
 * topic), with the {@link InProgressBackOff} and without an attempt limit; it is never
 * sent on to the next retry topic or the dead-letter topic, which would use up its
 * attempts while the outcome can still succeed.</li>
 * <li>{@link IdempotencyKeyReuseException} and the other exceptions that no retry can
 * fix: straight to the dead-letter topic, without going through the retry topics.</li>
 * <li>Every other exception: the retry topics as configured.</li>
 * </ul>
 * spring-kafka uses a {@link RetryTopicComponentFactory} bean in preference to the one of
 * {@link RetryTopicConfigurationSupport#createComponentFactory()}; to change other
 * components as well, extend this class.
 */
public class IdempotencyRetryTopicComponentFactory extends RetryTopicComponentFactory {

	private final InProgressBackOff backOff;

	/**
	 * Create a factory whose retry topics follow these rules.
	 * @param backOff the back-off of a record whose key is in progress elsewhere, and of
	 * store failures
	 */
	public IdempotencyRetryTopicComponentFactory(InProgressBackOff backOff) {
		Assert.notNull(backOff, "'backOff' must not be null");
		this.backOff = backOff;
	}

	@Override
	public DestinationTopicResolver destinationTopicResolver() {
		return new IdempotencyDestinationTopicResolver(internalRetryTopicClock());
	}

	@Override
	public ListenerContainerFactoryConfigurer listenerContainerFactoryConfigurer(
			KafkaConsumerBackoffManager kafkaConsumerBackoffManager,
			DeadLetterPublishingRecovererFactory deadLetterPublishingRecovererFactory, Clock clock) {
		return new IdempotencyListenerContainerFactoryConfigurer(kafkaConsumerBackoffManager,
				deadLetterPublishingRecovererFactory, clock, this.backOff);
	}

}
