package dev.idempotency.kafka;

import java.util.List;

import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogAccessor;
import org.springframework.kafka.KafkaException.Level;
import org.springframework.kafka.listener.BackOffHandler;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.SeekUtils;
import org.springframework.kafka.listener.adapter.AsyncRepliesAware;

/**
 * The error handler that {@link IdempotencyKafkaErrorHandling} builds. For a listener
 * whose results spring-kafka takes as asynchronous (see
 * {@link KafkaAsyncListenerAdvisor}), spring-kafka waits for the acknowledgement of each
 * record of a poll, and stops waiting for a record sought back only when the error
 * handler reports it in retry: after a recovered record (a reused key sent to the
 * dead-letter topic, say) it would wait for good for those after it, its consumer paused.
 * So the records after a recovered one are reported in retry there; the offset of the
 * recovered record is committed with the next one's.
 * <p>
 * The containers of the application's listener container factory beans no longer commit
 * such listeners out of order ({@link KafkaAsyncListenerContainers}), so this only
 * reaches the others: a container from a factory that is not a bean, or one told to
 * ({@code asyncAcks}). Not in transactions, where the rollback would undo the recovery.
 */
final class IdempotencyErrorHandler extends DefaultErrorHandler {

	private static final LogAccessor logger = new LogAccessor(LogFactory.getLog(IdempotencyErrorHandler.class));

	IdempotencyErrorHandler(@Nullable ConsumerRecordRecoverer recoverer) {
		this(recoverer, IdempotencyKafkaErrorHandling.backOffHandler());
	}

	IdempotencyErrorHandler(@Nullable ConsumerRecordRecoverer recoverer, BackOffHandler backOffHandler) {
		super(recoverer, SeekUtils.DEFAULT_BACK_OFF, backOffHandler);
	}

	@Override
	public void handleRemaining(Exception thrownException, List<ConsumerRecord<?, ?>> records, Consumer<?, ?> consumer,
			MessageListenerContainer container) {
		super.handleRemaining(thrownException, records, consumer, container);
		// Returned: the first record was recovered, the others sought back
		if (records.size() > 1 && waitsForAsyncAcks(container.getContainerProperties())) {
			SeekUtils.seekOrRecover(thrownException, records.subList(1, records.size()), consumer, container, false,
					(record, exception, recovering, recovered) -> false, logger, Level.DEBUG);
		}
	}

	// Not in a transaction: reported in retry there, the recovered record would be rolled
	// back and delivered again. A container may still be given a transaction manager of
	// any kind, through the method spring-kafka deprecated.
	@SuppressWarnings("removal")
	private static boolean waitsForAsyncAcks(ContainerProperties properties) {
		boolean asyncAcks = properties.isAsyncAcks()
				|| (properties.getMessageListener() instanceof AsyncRepliesAware listener && listener.isAsyncReplies());
		return asyncAcks && properties.getTransactionManager() == null
				&& properties.getKafkaAwareTransactionManager() == null;
	}

}
