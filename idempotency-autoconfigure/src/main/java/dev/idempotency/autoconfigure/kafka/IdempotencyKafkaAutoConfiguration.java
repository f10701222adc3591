package dev.idempotency.autoconfigure.kafka;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.kafka.IdempotencyKafkaAfterRollback;
import dev.idempotency.kafka.IdempotencyKafkaErrorHandling;
import dev.idempotency.kafka.KafkaAsyncListenerAdvisor;
import dev.idempotency.kafka.KafkaAsyncListenerContainers;
import dev.idempotency.kafka.KafkaTransactionSynchronization;
import dev.idempotency.kafka.IdempotencyRetryTopicComponentFactory;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.kafka.listener.AfterRollbackProcessor;
import org.springframework.context.annotation.Lazy;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.retrytopic.RetryTopicComponentFactory;

/**
 * Auto-configuration of idempotent Kafka listeners: an error handler with the rules of
 * {@link IdempotencyKafkaErrorHandling}, which Spring Boot's listener container factory
 * picks up. It waits out each back-off by pausing only the partition of the record that
 * waits, resumed by a scheduler of its own, unless
 * {@code idempotency.messaging.kafka-pause-partitions} is {@code false}: then the
 * consumer thread sleeps. Its recoverer is the application's
 * {@link ConsumerRecordRecoverer} bean, if it has exactly one. It backs off when the
 * application defines a {@link CommonErrorHandler} of its own. Containers that run their
 * listeners in Kafka transactions get an {@link AfterRollbackProcessor} with the same
 * rules ({@link IdempotencyKafkaAfterRollback}) and recoverer, unless the application
 * defines one. Listener methods that return a {@code CompletableFuture}, a
 * {@code CompletionStage} or a {@code Mono} get the {@link KafkaAsyncListenerAdvisor}, so
 * that the same rules hold for their results, and their containers treat them as the
 * synchronous listeners they then are ({@link KafkaAsyncListenerContainers}). Kafka
 * transaction managers are made to synchronize ({@link KafkaTransactionSynchronization}),
 * so that a record completes only once the container's transaction has committed, unless
 * {@code idempotency.messaging.kafka-transaction-synchronization} is {@code false}. Retry
 * topics ({@code @RetryableTopic}), whose containers get an error handler of
 * spring-kafka's instead, follow the same rules through an
 * {@link IdempotencyRetryTopicComponentFactory}, unless the application defines a
 * {@link RetryTopicComponentFactory} of its own.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class,
		beforeName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@ConditionalOnClass({ DefaultErrorHandler.class, IdempotencyKafkaErrorHandling.class })
public final class IdempotencyKafkaAutoConfiguration {

	private static final Log logger = LogFactory.getLog(IdempotencyKafkaAutoConfiguration.class);

	// Before the error handler, so that both see the same CommonErrorHandler beans of
	// the application's
	@Bean
	@ConditionalOnMissingBean(CommonErrorHandler.class)
	@ConditionalOnBooleanProperty(name = "idempotency.messaging.kafka-pause-partitions", matchIfMissing = true)
	KafkaPartitionResumer idempotencyKafkaPartitionResumer() {
		return new KafkaPartitionResumer();
	}

	@Bean
	@ConditionalOnMissingBean(CommonErrorHandler.class)
	DefaultErrorHandler idempotencyKafkaErrorHandler(IdempotencyProperties properties,
			ObjectProvider<ConsumerRecordRecoverer> recoverers, ObjectProvider<ConsumerFactory<?, ?>> consumerFactories,
			ObjectProvider<KafkaPartitionResumer> resumer) {
		InProgressBackOff backOff = properties.getMessaging().getInProgressRetry().toBackOff();
		MaxPollIntervalCheck.check(backOff, consumerFactories.getIfUnique());
		ConsumerRecordRecoverer recoverer = recoverers.getIfUnique();
		if (recoverer == null && recoverers.stream().findAny().isPresent()) {
			// Otherwise a record with a reused key would be logged and committed, not
			// dead-lettered, without a word
			logger.warn("Several ConsumerRecordRecoverer beans and none of them primary: the idempotency error "
					+ "handler of Kafka listeners logs the records it does not retry instead of recovering them. "
					+ "Mark one @Primary, or define a CommonErrorHandler of your own");
		}
		KafkaPartitionResumer partitions = resumer.getIfAvailable();
		// Pausing only the record's partition: sleeping would hold every other partition
		// of the consumer for as long as the first attempt runs
		return (partitions != null)
				? IdempotencyKafkaErrorHandling.partitionPausingErrorHandler(recoverer, backOff, partitions.scheduler())
				: IdempotencyKafkaErrorHandling.errorHandler(recoverer, backOff);
	}

	// Lazy: created when spring-kafka sets up retry topics, so that an application
	// without
	// them is not held to the check of a back-off that no container sleeps through
	@Bean
	@Lazy
	@ConditionalOnMissingBean(RetryTopicComponentFactory.class)
	IdempotencyRetryTopicComponentFactory idempotencyRetryTopicComponentFactory(IdempotencyProperties properties,
			ObjectProvider<ConsumerFactory<?, ?>> consumerFactories) {
		InProgressBackOff backOff = properties.getMessaging().getInProgressRetry().toBackOff();
		MaxPollIntervalCheck.check(backOff, consumerFactories.getIfUnique());
		return new IdempotencyRetryTopicComponentFactory(backOff);
	}

	// spring-kafka's default processor would give up, after ten deliveries, a record the
	// error handler keeps retrying (in progress elsewhere, or meeting a store outage) and
	// hand it to its recoverer; only the handler's seek then delivers it again
	@Bean
	@ConditionalOnMissingBean(AfterRollbackProcessor.class)
	DefaultAfterRollbackProcessor<Object, Object> idempotencyKafkaAfterRollbackProcessor(
			IdempotencyProperties properties, ObjectProvider<ConsumerRecordRecoverer> recoverers) {
		return IdempotencyKafkaAfterRollback.afterRollbackProcessor(recoverers.getIfUnique(),
				properties.getMessaging().getInProgressRetry().toBackOff());
	}

	// Static and infrastructure, like every advisor: the proxy creator looks it up
	// while it creates other beans
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static KafkaAsyncListenerAdvisor idempotencyKafkaAsyncListenerAdvisor() {
		return new KafkaAsyncListenerAdvisor();
	}

	// Static and infrastructure too: a post-processor, created before the factories it
	// proxies. With the advisor, since it is the advisor's wait that makes such listeners
	// synchronous
	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static KafkaAsyncListenerContainers idempotencyKafkaAsyncListenerContainers() {
		return new KafkaAsyncListenerContainers();
	}

	// Static: a post-processor is created before the other beans
	@Bean
	@ConditionalOnBooleanProperty(name = "idempotency.messaging.kafka-transaction-synchronization",
			matchIfMissing = true)
	static KafkaTransactionSynchronization idempotencyKafkaTransactionSynchronization() {
		return new KafkaTransactionSynchronization();
	}

}
