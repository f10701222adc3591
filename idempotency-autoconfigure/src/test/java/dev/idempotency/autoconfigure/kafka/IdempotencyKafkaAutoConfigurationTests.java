package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.Idempotent;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.kafka.KafkaAsyncListenerAdvisor;
import dev.idempotency.kafka.KafkaAsyncListenerContainers;
import dev.idempotency.kafka.IdempotencyRetryTopicComponentFactory;
import dev.idempotency.kafka.KafkaTransactionSynchronization;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.Ordered;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.listener.AfterRollbackProcessor;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.CommonLoggingErrorHandler;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.retrytopic.RetryTopicComponentFactory;
import org.springframework.kafka.support.KafkaUtils;
import org.springframework.kafka.transaction.KafkaTransactionManager;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link IdempotencyKafkaAutoConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyKafkaAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues("idempotency.store=memory")
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class,
				IdempotencyKafkaAutoConfiguration.class, KafkaAutoConfiguration.class));

	private final ConsumerRecord<String, String> record = new ConsumerRecord<>("payments", 0, 7, "k", "v");

	@Test
	void listenerContainersOfBootsFactoryGetTheIdempotencyErrorHandler() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(CommonErrorHandler.class).hasBean("idempotencyKafkaErrorHandler");
			ConcurrentKafkaListenerContainerFactory<?, ?> factory = context
				.getBean(ConcurrentKafkaListenerContainerFactory.class);
			ConcurrentMessageListenerContainer<?, ?> container = factory.createContainer("payments");
			assertThat(container.getCommonErrorHandler()).isSameAs(context.getBean(CommonErrorHandler.class));
		});
	}

	@Test
	void listenerContainersOfBootsFactoryGetTheIdempotencyAfterRollbackProcessor() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(AfterRollbackProcessor.class)
				.hasBean("idempotencyKafkaAfterRollbackProcessor");
			ConcurrentKafkaListenerContainerFactory<?, ?> factory = context
				.getBean(ConcurrentKafkaListenerContainerFactory.class);
			ConcurrentMessageListenerContainer<?, ?> container = factory.createContainer("payments");
			assertThat(container.getAfterRollbackProcessor()).isSameAs(context.getBean(AfterRollbackProcessor.class));
		});
	}

	@Test
	void backsOffWhenTheApplicationHasAnAfterRollbackProcessor() {
		this.contextRunner
			.withBean("ownAfterRollbackProcessor", AfterRollbackProcessor.class, DefaultAfterRollbackProcessor::new)
			.run((context) -> assertThat(context).hasSingleBean(AfterRollbackProcessor.class)
				.hasBean("ownAfterRollbackProcessor"));
	}

	@Test
	void asyncListenerResultsAreAwaited() {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(KafkaAsyncListenerAdvisor.class));
	}

	@ParameterizedTest
	@ValueSource(ints = { Ordered.HIGHEST_PRECEDENCE, 0, Ordered.LOWEST_PRECEDENCE })
	void asyncListenerResultIsAwaitedOutsideTheIdempotentAdviceWhateverItsOrder(int advisorOrder) {
		new ApplicationContextRunner()
			.withPropertyValues("idempotency.store=memory", "idempotency.advisor-order=" + advisorOrder)
			.withConfiguration(
					AutoConfigurations.of(IdempotencyAutoConfiguration.class, IdempotencyKafkaAutoConfiguration.class))
			.withBean(AsyncListener.class)
			.run((context) -> {
				AsyncListener listener = context.getBean(AsyncListener.class);
				CompletableFuture<String> firstAttempt = new CompletableFuture<>();
				assertThat(listener.charge("evt-1", firstAttempt)).isNotDone();
				KafkaUtils.setConsumerGroupId("payments");
				try {
					// A failure the consumer thread does not see is one spring-kafka
					// acknowledges before its error handler sees it
					assertThatExceptionOfType(IdempotencyInProgressException.class)
						.isThrownBy(() -> listener.charge("evt-1", new CompletableFuture<>()));
				}
				finally {
					KafkaUtils.clearConsumerGroupId();
					firstAttempt.complete("charged");
				}
			});
	}

	@Test
	void retryTopicsGetTheIdempotencyComponentFactory() {
		this.contextRunner.run((context) -> assertThat(context).getBean(RetryTopicComponentFactory.class)
			.isInstanceOf(IdempotencyRetryTopicComponentFactory.class));
	}

	@Test
	void retryTopicComponentFactoryOfTheApplicationIsKept() {
		this.contextRunner.withBean("custom", RetryTopicComponentFactory.class, RetryTopicComponentFactory::new)
			.run((context) -> assertThat(context).getBean(RetryTopicComponentFactory.class)
				.isNotInstanceOf(IdempotencyRetryTopicComponentFactory.class));
	}

	@Test
	void kafkaTransactionManagerSynchronizesOnActualTransactions() {
		this.contextRunner.withPropertyValues("spring.kafka.producer.transaction-id-prefix=tx-")
			.run((context) -> assertThat(context.getBean(KafkaTransactionManager.class).getTransactionSynchronization())
				.isEqualTo(AbstractPlatformTransactionManager.SYNCHRONIZATION_ON_ACTUAL_TRANSACTION));
	}

	@Test
	void kafkaTransactionManagerIsLeftWithoutSynchronizationWhenTurnedOff() {
		this.contextRunner
			.withPropertyValues("spring.kafka.producer.transaction-id-prefix=tx-",
					"idempotency.messaging.kafka-transaction-synchronization=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(KafkaTransactionSynchronization.class);
				assertThat(context.getBean(KafkaTransactionManager.class).getTransactionSynchronization())
					.isEqualTo(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);
			});
	}

	@Test
	void recordWithAKeyInProgressIsRetriedNotRecovered() {
		this.contextRunner.run((context) -> {
			DefaultErrorHandler handler = context.getBean(DefaultErrorHandler.class);
			for (int attempt = 0; attempt < 12; attempt++) {
				assertThat(handler.handleOne(failure(inProgress(Duration.ofMillis(1))), this.record, null, null))
					.isFalse();
			}
		});
	}

	@Test
	void severalRecoverersAndNonePrimaryAreWarnedAbout(CapturedOutput output) {
		this.contextRunner.withBean("one", ConsumerRecordRecoverer.class, () -> (record, exception) -> {
		}).withBean("two", ConsumerRecordRecoverer.class, () -> (record, exception) -> {
		}).run((context) -> {
			assertThat(context).hasSingleBean(DefaultErrorHandler.class);
			assertThat(output).contains("Several ConsumerRecordRecoverer beans and none of them primary");
		});
	}

	@Test
	void oneRecovererIsNotWarnedAbout(CapturedOutput output) {
		this.contextRunner.withBean(ConsumerRecordRecoverer.class, () -> (record, exception) -> {
		}).run((context) -> assertThat(output).doesNotContain("ConsumerRecordRecoverer beans"));
	}

	@Test
	void applicationsRecovererReceivesARecordWhoseKeyWasReused() {
		List<ConsumerRecord<?, ?>> recovered = new CopyOnWriteArrayList<>();
		this.contextRunner.withBean(ConsumerRecordRecoverer.class, () -> (record, exception) -> recovered.add(record))
			.run((context) -> {
				DefaultErrorHandler handler = context.getBean(DefaultErrorHandler.class);
				assertThat(handler.handleOne(failure(new IdempotencyKeyReuseException("kafka.charges", "evt-1")),
						this.record, null, null))
					.isTrue();
				assertThat(recovered).containsExactly(this.record);
			});
	}

	@Test
	void backsOffWhenTheApplicationHasAnErrorHandler() {
		this.contextRunner.withBean("ownErrorHandler", CommonErrorHandler.class, CommonLoggingErrorHandler::new)
			.run((context) -> {
				assertThat(context).hasSingleBean(CommonErrorHandler.class).hasBean("ownErrorHandler");
				ConcurrentKafkaListenerContainerFactory<?, ?> factory = context
					.getBean(ConcurrentKafkaListenerContainerFactory.class);
				ConcurrentMessageListenerContainer<?, ?> container = factory.createContainer("payments");
				assertThat(container.getCommonErrorHandler()).isSameAs(context.getBean("ownErrorHandler"));
			});
	}

	@Test
	void inProgressRetryPropertiesSetTheBackOff() {
		this.contextRunner
			.withPropertyValues("idempotency.messaging.in-progress-retry.initial-interval=250ms",
					"idempotency.messaging.in-progress-retry.multiplier=3",
					"idempotency.messaging.in-progress-retry.max-interval=250ms")
			.run((context) -> {
				assertThat(context.getBean(IdempotencyProperties.class).getMessaging().getInProgressRetry().toBackOff())
					.isEqualTo(new InProgressBackOff(Duration.ofMillis(250), 3, Duration.ofMillis(250)));
				DefaultErrorHandler handler = context.getBean(DefaultErrorHandler.class);
				long started = System.nanoTime();
				handler.handleOne(failure(inProgress(Duration.ofSeconds(30))), this.record, null, null);
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(250),
						Duration.ofSeconds(5));
			});
	}

	@Test
	void invalidInProgressRetryFailsStartup() {
		this.contextRunner.withPropertyValues("idempotency.messaging.in-progress-retry.multiplier=0.5")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("idempotency.messaging.in-progress-retry"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "initial-interval=0ms", "initial-interval=-1s", "max-interval=50ms", "multiplier=0",
			"multiplier=-2", "multiplier=NaN" })
	void hostileInProgressRetryFailsStartupNamingTheProperty(String setting) {
		this.contextRunner.withPropertyValues("idempotency.messaging.in-progress-retry." + setting)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(BindValidationException.class)
				.hasMessageContaining("idempotency.messaging.in-progress-retry"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "spring.kafka.consumer.max-poll-interval=8s",
			"spring.kafka.consumer.properties.max.poll.interval.ms=8000" })
	void maxIntervalLongerThanHalfTheConsumersPollIntervalFailsStartupNamingBothSettings(String pollInterval) {
		this.contextRunner.withPropertyValues(pollInterval, "idempotency.messaging.in-progress-retry.max-interval=5s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("idempotency.messaging.in-progress-retry.max-interval")
				.hasMessageContaining("max.poll.interval.ms (8000 ms"));
	}

	@Test
	void maxIntervalLongerThanHalfTheConsumersPollIntervalIsLeftToAnErrorHandlerOfTheApplication() {
		this.contextRunner.withBean(CommonErrorHandler.class, CommonLoggingErrorHandler::new)
			.withPropertyValues("spring.kafka.consumer.max-poll-interval=8s",
					"idempotency.messaging.in-progress-retry.max-interval=5s")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("idempotencyKafkaErrorHandler"));
	}

	@Test
	void maxIntervalWithinHalfTheConsumersPollIntervalStartsUp() {
		this.contextRunner
			.withPropertyValues("spring.kafka.consumer.max-poll-interval=10s",
					"idempotency.messaging.in-progress-retry.max-interval=5s")
			.run((context) -> assertThat(context).hasNotFailed().hasBean("idempotencyKafkaErrorHandler"));
	}

	@Test
	void absentWithoutSpringKafka() {
		new ApplicationContextRunner().withPropertyValues("idempotency.store=memory")
			.withConfiguration(
					AutoConfigurations.of(IdempotencyAutoConfiguration.class, IdempotencyKafkaAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader(DefaultErrorHandler.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("idempotencyKafkaErrorHandler"));
	}

	@Test
	void errorHandlerPausesOnlyTheRecordsPartitionWithASchedulerThatStopsWithTheContext() {
		AtomicReference<ThreadPoolTaskScheduler> scheduler = new AtomicReference<>();
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(KafkaPartitionResumer.class).doesNotHaveBean(TaskScheduler.class);
			scheduler.set((ThreadPoolTaskScheduler) context.getBean(KafkaPartitionResumer.class).scheduler());
			assertThat(scheduler.get().getScheduledExecutor().isShutdown()).isFalse();
		});
		assertThat(scheduler.get().getScheduledExecutor().isShutdown()).isTrue();
	}

	@Test
	void errorHandlerSleepsWhenPartitionPausingIsOff() {
		this.contextRunner.withPropertyValues("idempotency.messaging.kafka-pause-partitions=false")
			.run((context) -> assertThat(context).hasBean("idempotencyKafkaErrorHandler")
				.doesNotHaveBean(KafkaPartitionResumer.class));
	}

	@Test
	void noSchedulerForTheApplicationsOwnErrorHandler() {
		this.contextRunner.withBean("ownErrorHandler", CommonErrorHandler.class, CommonLoggingErrorHandler::new)
			.run((context) -> assertThat(context).doesNotHaveBean(KafkaPartitionResumer.class));
	}

	@Test
	void listenerContainerFactoryIsProxiedSoThatAwaitedListenersAreTakenAsSynchronous() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(KafkaAsyncListenerContainers.class);
			assertThat(AopUtils.isCglibProxy(context.getBean(ConcurrentKafkaListenerContainerFactory.class))).isTrue();
		});
	}

	@Test
	void absentWhenIdempotencyIsDisabled() {
		this.contextRunner.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(CommonErrorHandler.class));
	}

	static class AsyncListener {

		@KafkaListener(topics = "payments")
		@Idempotent(name = "kafka.async-charges", key = "#id")
		public CompletableFuture<String> charge(String id, CompletableFuture<String> result) {
			return result;
		}

	}

	private static Exception failure(Exception exception) {
		return new ListenerExecutionFailedException("Listener failed", exception);
	}

	private static IdempotencyInProgressException inProgress(Duration retryAfter) {
		return new IdempotencyInProgressException("kafka.charges", "evt-1", retryAfter);
	}

}
