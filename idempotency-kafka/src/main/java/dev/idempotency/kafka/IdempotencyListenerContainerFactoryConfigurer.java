package dev.idempotency.kafka;

import java.time.Clock;
import java.util.function.BiFunction;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.KafkaConsumerBackoffManager;
import org.springframework.kafka.listener.SeekUtils;
import org.springframework.kafka.retrytopic.DeadLetterPublishingRecovererFactory;
import org.springframework.kafka.retrytopic.ListenerContainerFactoryConfigurer;
import org.springframework.util.backoff.BackOff;

/**
 * Gives the error handler of every retry-topic container (the main topic's, each retry
 * topic's) the rules of {@link IdempotencyKafkaErrorHandling}: our exceptions are retried
 * in place, blocking, so that the back-off function decides, while every other exception
 * keeps spring-kafka's classification for retry topics (not retried in place unless the
 * application said so) and goes on to the next topic.
 */
final class IdempotencyListenerContainerFactoryConfigurer extends ListenerContainerFactoryConfigurer {

	private final InProgressBackOff backOff;

	private @Nullable BackOff blockingBackOff;

	IdempotencyListenerContainerFactoryConfigurer(KafkaConsumerBackoffManager kafkaConsumerBackoffManager,
			DeadLetterPublishingRecovererFactory deadLetterPublishingRecovererFactory, Clock clock,
			InProgressBackOff backOff) {
		super(kafkaConsumerBackoffManager, deadLetterPublishingRecovererFactory, clock);
		this.backOff = backOff;
	}

	// Kept for the back-off function: the handler itself needs a back-off with retries
	@Override
	public void setBlockingRetriesBackOff(@Nullable BackOff blockingBackOff) {
		super.setBlockingRetriesBackOff(blockingBackOff);
		this.blockingBackOff = blockingBackOff;
	}

	// spring-kafka resets the classification after creating the instance, and applies
	// the application's customizer: our exceptions are classified last
	@Override
	protected CommonErrorHandler createErrorHandler(DeadLetterPublishingRecoverer deadLetterPublishingRecoverer) {
		CommonErrorHandler handler = super.createErrorHandler(deadLetterPublishingRecoverer);
		if (handler instanceof DefaultErrorHandler defaultHandler) {
			IdempotencyKafkaErrorHandling.classify(defaultHandler);
		}
		return handler;
	}

	// The back-off function before the customizer, which may wrap it. With a blocking
	// back-off that allows no retry spring-kafka would never ask the function, so the
	// handler gets the default one, and the function hands out the application's for the
	// exceptions it made blocking
	@Override
	protected DefaultErrorHandler createDefaultErrorHandlerInstance(
			DeadLetterPublishingRecoverer deadLetterPublishingRecoverer) {
		DefaultErrorHandler handler = new DefaultErrorHandler(deadLetterPublishingRecoverer, SeekUtils.DEFAULT_BACK_OFF,
				IdempotencyKafkaErrorHandling.backOffHandler());
		IdempotencyKafkaErrorHandling.applyTo(handler, this.backOff);
		BackOff blocking = this.blockingBackOff;
		if (blocking != null) {
			BiFunction<ConsumerRecord<?, ?>, Exception, @Nullable BackOff> rules = IdempotencyKafkaErrorHandling
				.backOffFunction(this.backOff);
			handler.setBackOffFunction((record, exception) -> {
				BackOff ours = rules.apply(record, exception);
				return (ours != null) ? ours : blocking;
			});
		}
		return handler;
	}

}
