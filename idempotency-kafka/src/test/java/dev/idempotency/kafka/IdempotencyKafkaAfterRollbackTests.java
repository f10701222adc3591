package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ContainerProperties.EOSMode;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.listener.MessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchException;

/**
 * Tests for {@link IdempotencyKafkaAfterRollback}: what an after-rollback processor with
 * its rules does with each failure of a record.
 */
class IdempotencyKafkaAfterRollbackTests {

	private static final InProgressBackOff BACK_OFF = new InProgressBackOff(Duration.ofMillis(1), 2,
			Duration.ofMillis(2));

	private final List<ConsumerRecord<?, ?>> recovered = new CopyOnWriteArrayList<>();

	private final DefaultAfterRollbackProcessor<Object, Object> processor = IdempotencyKafkaAfterRollback
		.afterRollbackProcessor((record, exception) -> this.recovered.add(record), BACK_OFF);

	private final ConsumerRecord<Object, Object> record = new ConsumerRecord<>("payments", 1, 42, "k", "v");

	private final MockConsumer<Object, Object> consumer = new MockConsumer<>("earliest");

	private final MessageListenerContainer container = new RunningContainer();

	IdempotencyKafkaAfterRollbackTests() {
		TopicPartition partition = new TopicPartition("payments", 1);
		this.consumer.assign(List.of(partition));
		this.consumer.updateBeginningOffsets(Map.of(partition, 0L));
	}

	@Test
	void recordTheErrorHandlerDeliversAgainIsNeverRecoveredAfterTheRollback() {
		// What spring-kafka's error handler throws inside the transaction: a record it
		// delivers again, which our rules keep retrying long past its own back-off
		DefaultErrorHandler handler = new DefaultErrorHandler();
		Exception inRetry = catchException(() -> handler.handleRemaining(
				new ListenerExecutionFailedException("Listener failed", new IllegalStateException("boom")),
				List.of(this.record), this.consumer, this.container));
		assertThat(AfterRollbackBackOffs.inRetry(inRetry)).as(inRetry.getClass().getName()).isTrue();
		for (int attempt = 0; attempt < 30; attempt++) {
			rollBack(inRetry);
		}
		assertThat(this.recovered).isEmpty();
	}

	@Test
	void batchTheErrorHandlerDeliversAgainIsNeverRecoveredAfterTheRollbackWhenBatchesAreRecoverable() {
		// What a batch listener's error handler throws inside the transaction for a
		// record in progress elsewhere; with batchRecoverAfterRollback=true and
		// commitRecovered=true the processor may recover (and commit) the whole batch
		DefaultErrorHandler handler = new DefaultErrorHandler();
		Exception inRetry = catchException(
				() -> handler
					.handleBatch(
							new BatchListenerFailedException("Record in progress",
									new IdempotencyInProgressException("kafka.charges", "evt-1",
											Duration.ofSeconds(30)),
									this.record),
							batch(), this.consumer, this.container, () -> {
							}));
		DefaultAfterRollbackProcessor<Object, Object> committing = IdempotencyKafkaAfterRollback.afterRollbackProcessor(
				(record, exception) -> this.recovered.add(record), BACK_OFF,
				new KafkaTemplate<>(new DefaultKafkaProducerFactory<>(Map.of())), true);
		for (int attempt = 0; attempt < 30; attempt++) {
			committing.processBatch(batch(), List.of(this.record), this.consumer, this.container, inRetry, true,
					EOSMode.V2);
			committing.processBatch(batch(), List.of(this.record), this.consumer, this.container,
					failure(new IdempotencyStoreException("Redis is down", new IllegalStateException("down"))), true,
					EOSMode.V2);
		}
		assertThat(this.recovered).isEmpty();
	}

	@Test
	void recordInProgressElsewhereIsRetriedWithoutLimitAndNeverRecovered() {
		for (int attempt = 0; attempt < 30; attempt++) {
			rollBack(failure(new IdempotencyInProgressException("kafka.charges", "evt-1", Duration.ofSeconds(30))));
		}
		assertThat(this.recovered).isEmpty();
	}

	@Test
	void recordMeetingAStoreFailureIsRetriedWithoutLimitAndNeverRecovered() {
		for (int attempt = 0; attempt < 30; attempt++) {
			rollBack(failure(new IdempotencyStoreException("Redis is down", new IllegalStateException("down"))));
		}
		assertThat(this.recovered).isEmpty();
	}

	@Test
	void recordWithAReusedKeyIsRecoveredAtOnce() {
		rollBack(failure(new IdempotencyKeyReuseException("kafka.charges", "evt-1")));
		assertThat(this.recovered).containsExactly(this.record);
	}

	@Test
	void anyOtherExceptionKeepsTheDefaultTenDeliveries() {
		for (int attempt = 0; attempt < 10; attempt++) {
			rollBack(failure(new IllegalStateException("boom")));
		}
		assertThat(this.recovered).containsExactly(this.record);
	}

	private void rollBack(Exception exception) {
		this.processor.process(List.of(this.record), this.consumer, this.container, exception, true, EOSMode.V2);
	}

	private ConsumerRecords<Object, Object> batch() {
		return new ConsumerRecords<>(Map.of(new TopicPartition("payments", 1), List.of(this.record)), Map.of());
	}

	private static Exception failure(Exception exception) {
		return new ListenerExecutionFailedException("Listener failed", exception);
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
		public ContainerProperties getContainerProperties() {
			return new ContainerProperties("payments");
		}

		@Override
		public boolean isPartitionPauseRequested(TopicPartition partition) {
			return false;
		}

	}

}
