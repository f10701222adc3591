package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyPayloadException;
import dev.idempotency.IdempotencyReplayException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.kafka.listener.BackOffHandler;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.SeekUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link IdempotencyKafkaErrorHandling}: what a {@link DefaultErrorHandler}
 * with its rules does with each failure of a record, and how long it waits.
 */
class IdempotencyKafkaErrorHandlingTests {

	private static final InProgressBackOff BACK_OFF = new InProgressBackOff(Duration.ofMillis(100), 2,
			Duration.ofSeconds(5));

	private final List<Long> delays = new CopyOnWriteArrayList<>();

	private final List<ConsumerRecord<?, ?>> recovered = new CopyOnWriteArrayList<>();

	private final BackOffHandler recordingHandler = new BackOffHandler() {

		@Override
		public void onNextBackOff(org.springframework.kafka.listener.MessageListenerContainer container,
				Exception exception, long nextBackOff) {
			IdempotencyKafkaErrorHandlingTests.this.delays.add(nextBackOff);
		}

	};

	private final DefaultErrorHandler handler = handler();

	private final ConsumerRecord<String, String> record = new ConsumerRecord<>("payments", 1, 42, "k", "v");

	@Test
	void recordInProgressElsewhereIsRetriedWithoutLimitAndNeverRecovered() {
		for (int attempt = 0; attempt < 50; attempt++) {
			assertThat(fail(inProgress(Duration.ofSeconds(30)))).isFalse();
		}
		assertThat(this.recovered).isEmpty();
		assertThat(this.delays).startsWith(100L, 200L, 400L, 800L, 1600L, 3200L, 5000L, 5000L).hasSize(50);
		assertThat(this.delays.subList(6, 50)).containsOnly(5000L);
	}

	@Test
	void eachInProgressDelayIsBoundedByTheLeaseTheDeliveryMet() {
		fail(inProgress(Duration.ofSeconds(30)));
		fail(inProgress(Duration.ofMillis(150)));
		fail(inProgress(Duration.ofSeconds(30)));
		fail(inProgress(Duration.ofMillis(60)));
		assertThat(this.delays).containsExactly(100L, 150L, 400L, 60L);
	}

	@Test
	void leaseThatHasRunOutRetriesAfterOneMillisecond() {
		fail(inProgress(Duration.ZERO));
		assertThat(this.delays).containsExactly(1L);
	}

	@Test
	void inProgressExceptionIsFoundAmongTheCausesOfAnApplicationsException() {
		fail(new IllegalStateException("listener wrapped it", inProgress(Duration.ofMillis(30))));
		assertThat(this.delays).containsExactly(30L);
		assertThat(this.recovered).isEmpty();
	}

	@ParameterizedTest
	@MethodSource("failuresNoRetryCanFix")
	void failureNoRetryCanFixIsRecoveredAtOnce(Exception failure) {
		assertThat(fail(failure)).isTrue();
		assertThat(this.recovered).containsExactly(this.record);
		assertThat(this.delays).isEmpty();
	}

	static Stream<Exception> failuresNoRetryCanFix() {
		return Stream.of(new IdempotencyKeyReuseException("kafka.charges", "evt-1"),
				new IdempotencyKeyException("Key of kafka.charges is blank"),
				new IdempotencyPayloadException("Payload of kafka.charges could not be fingerprinted", null),
				new IdempotencyReplayException("Result of kafka.charges is too large to replay"),
				new IllegalStateException("wrapped", new IdempotencyKeyReuseException("kafka.charges", "evt-1")));
	}

	@Test
	void storeFailureIsRetriedWithBoundedExponentialBackOffWithoutLimit() {
		for (int attempt = 0; attempt < 50; attempt++) {
			assertThat(fail(new IdempotencyStoreException("Redis is down"))).isFalse();
		}
		assertThat(this.recovered).isEmpty();
		assertThat(this.delays).startsWith(100L, 200L, 400L).hasSize(50);
		assertThat(this.delays.subList(6, 50)).containsOnly(5000L);
	}

	@Test
	void otherFailuresKeepTheHandlersOwnBackOff() {
		for (int attempt = 0; attempt < 9; attempt++) {
			assertThat(fail(new IllegalStateException("downstream failed"))).isFalse();
		}
		assertThat(fail(new IllegalStateException("downstream failed"))).isTrue();
		assertThat(this.recovered).containsExactly(this.record);
		assertThat(this.delays).hasSize(9).containsOnly(0L);
	}

	@Test
	void lostLockIsRetriedUnderTheHandlersOwnBackOffThenMeetsTheAttemptThatTookOver() {
		assertThat(fail(new IdempotencyLockLostException("kafka.charges", "evt-1", 1))).isFalse();
		assertThat(fail(inProgress(Duration.ofSeconds(30)))).isFalse();
		assertThat(this.delays).containsExactly(0L, 100L);
	}

	@Test
	void anotherKindOfFailureStartsTheBackOffAfresh() {
		fail(inProgress(Duration.ofSeconds(30)));
		fail(inProgress(Duration.ofSeconds(30)));
		fail(new IdempotencyStoreException("Redis is down"));
		fail(inProgress(Duration.ofSeconds(30)));
		assertThat(this.delays).containsExactly(100L, 200L, 100L, 100L);
	}

	@Test
	void recordThatABatchListenerNamesIsTreatedByTheSameRules() {
		assertThat(this.handler.handleOne(
				new BatchListenerFailedException("Batch failed", inProgress(Duration.ofMillis(70)), 0), this.record,
				null, null))
			.isFalse();
		assertThat(this.delays).containsExactly(70L);
		ConsumerRecord<String, String> next = new ConsumerRecord<>("payments", 1, 43, "k", "v");
		assertThat(this.handler.handleOne(new BatchListenerFailedException("Batch failed",
				new IdempotencyKeyReuseException("kafka.charges", "evt-1"), 1), next, null, null))
			.isTrue();
		assertThat(this.recovered).containsExactly(next);
	}

	@ParameterizedTest
	@MethodSource("failuresNoRetryCanFix")
	void batchListenerFailureNoRetryCanFixWithoutARecordNamedIsRecoveredWithoutCallingTheListenerAgain(
			Exception failure) {
		assertThat(failBatch(this.handler, failure)).hasValue(0);
		assertThat(this.recovered).hasSize(2);
	}

	@ParameterizedTest
	@MethodSource("failuresNoRetryCanFix")
	void batchListenerFailureNoRetryCanFixIsRecoveredAtOnceAlsoWhenTheApplicationKeepsRetryStateOnExceptionChange(
			Exception failure) {
		this.handler.setResetStateOnExceptionChange(false);
		assertThat(failBatch(this.handler, failure)).hasValue(0);
		assertThat(this.recovered).hasSize(2);
	}

	// As the container reports a batch listener's exception that names no record;
	// returns how often the listener was called again
	private AtomicInteger failBatch(DefaultErrorHandler handler, Exception failure) {
		TopicPartition partition = new TopicPartition("payments", 1);
		MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
		consumer.assign(List.of(partition));
		consumer.updateBeginningOffsets(Map.of(partition, 0L));
		ConsumerRecords<String, String> batch = new ConsumerRecords<>(
				Map.of(partition, List.of(this.record, new ConsumerRecord<>("payments", 1, 43, "k2", "v2"))), Map.of());
		AtomicInteger listenerCalls = new AtomicInteger();
		handler.handleBatch(new ListenerExecutionFailedException("Listener failed", failure), batch, consumer,
				new RunningContainer(), () -> {
					listenerCalls.incrementAndGet();
					throw new ListenerExecutionFailedException("Listener failed", failure);
				});
		return listenerCalls;
	}

	@Test
	void errorHandlerWithoutRecovererAppliesTheRules() {
		DefaultErrorHandler handler = IdempotencyKafkaErrorHandling.errorHandler(null, BACK_OFF);
		assertThat(
				handler.handleOne(new IdempotencyKeyReuseException("kafka.charges", "evt-1"), this.record, null, null))
			.isTrue();
	}

	@Test
	void backOffFunctionChoosesOnlyForOurRetryableExceptions() {
		var function = IdempotencyKafkaErrorHandling.backOffFunction(BACK_OFF);
		assertThat(function.apply(this.record, inProgress(Duration.ofMillis(40))).start().nextBackOff()).isEqualTo(40);
		assertThat(function.apply(this.record, new IdempotencyStoreException("Redis is down")).start().nextBackOff())
			.isEqualTo(100);
		assertThat(function.apply(this.record, new IllegalStateException("downstream failed"))).isNull();
	}

	@Test
	void nullArgumentsAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKafkaErrorHandling.applyTo(null, BACK_OFF))
			.withMessage("'handler' must not be null");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> IdempotencyKafkaErrorHandling.applyTo(new DefaultErrorHandler(), null))
			.withMessage("'backOff' must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKafkaErrorHandling.backOffHandler(null))
			.withMessage("'delegate' must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> IdempotencyKafkaErrorHandling.backOffFunction(null))
			.withMessage("'backOff' must not be null");
	}

	// As the container reports it: the listener's exception wrapped
	private boolean fail(Exception failure) {
		return this.handler.handleOne(new ListenerExecutionFailedException("Listener failed", failure), this.record,
				null, null);
	}

	private DefaultErrorHandler handler() {
		DefaultErrorHandler handler = new DefaultErrorHandler((record, exception) -> this.recovered.add(record),
				SeekUtils.DEFAULT_BACK_OFF, IdempotencyKafkaErrorHandling.backOffHandler(this.recordingHandler));
		IdempotencyKafkaErrorHandling.applyTo(handler, BACK_OFF);
		return handler;
	}

	private static final class RunningContainer implements MessageListenerContainer {

		@Override
		public void setupMessageListener(Object messageListener) {
		}

		@Override
		public Map<String, Map<MetricName, ? extends Metric>> metrics() {
			return Map.of();
		}

		@Override
		public void start() {
		}

		@Override
		public void stop() {
		}

		@Override
		public boolean isRunning() {
			return true;
		}

		@Override
		public boolean isPartitionPauseRequested(TopicPartition partition) {
			return false;
		}

	}

	private static IdempotencyInProgressException inProgress(Duration retryAfter) {
		return new IdempotencyInProgressException("kafka.charges", "evt-1", retryAfter);
	}

}
