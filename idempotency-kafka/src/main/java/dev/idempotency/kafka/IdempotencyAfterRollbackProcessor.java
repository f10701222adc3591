package dev.idempotency.kafka;

import java.util.List;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyStoreException;

import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.ContainerProperties.EOSMode;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.SeekUtils;

/**
 * The after-rollback processor that {@link IdempotencyKafkaAfterRollback} builds. Its
 * back-off function covers records; a batch that spring-kafka may recover after a
 * rollback ({@code batchRecoverAfterRollback} with {@code commitRecovered}) gets the
 * processor's own back-off instead, and then the whole batch is recovered and committed.
 * A batch that the rules retry without a limit is sought back instead, as a batch that
 * may not be recovered is.
 */
final class IdempotencyAfterRollbackProcessor extends DefaultAfterRollbackProcessor<Object, Object> {

	IdempotencyAfterRollbackProcessor(@Nullable ConsumerRecordRecoverer recoverer,
			@Nullable KafkaOperations<?, ?> kafkaOperations, boolean commitRecovered) {
		super(recoverer, SeekUtils.DEFAULT_BACK_OFF, IdempotencyKafkaAfterRollback.backOffHandler(), kafkaOperations,
				commitRecovered);
	}

	@Override
	public void processBatch(ConsumerRecords<Object, Object> records, List<ConsumerRecord<Object, Object>> recordList,
			Consumer<Object, Object> consumer, @Nullable MessageListenerContainer container, Exception exception,
			boolean recoverable, EOSMode eosMode) {
		super.processBatch(records, recordList, consumer, container, exception,
				recoverable && !retriedWithoutLimit(exception), eosMode);
	}

	private static boolean retriedWithoutLimit(Exception exception) {
		return AfterRollbackBackOffs.inRetry(exception)
				|| IdempotencyExceptions.find(exception, IdempotencyInProgressException.class) != null
				|| IdempotencyExceptions.find(exception, IdempotencyStoreException.class) != null;
	}

}
