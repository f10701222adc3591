package dev.idempotency.kafka;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.listener.BackOffHandler;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DefaultAfterRollbackProcessor;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.Assert;

/**
 * The rules of {@link IdempotencyKafkaErrorHandling} for the
 * {@link DefaultAfterRollbackProcessor} of a listener container that runs its listeners
 * in Kafka transactions. There, a record whose listener failed is handed to the error
 * handler inside the transaction and then, when the handler throws, to the after-rollback
 * processor, whose own back-off (spring-kafka's default: nine immediate retries) would
 * otherwise recover a record whose key is in progress elsewhere, or that meets a store
 * outage: dead-lettered, or skipped and committed with the next record. With these rules:
 * <ul>
 * <li>a record the error handler has already decided to deliver again is delivered again
 * at once, however often, and never recovered: the error handler waited, and it
 * decides;</li>
 * <li>otherwise (a container without an error handler) the record gets the rules of
 * {@link IdempotencyKafkaErrorHandling}: {@link IdempotencyInProgressException} and
 * {@link IdempotencyStoreException} are retried after their back-off without a limit, the
 * exceptions that no retry can fix are recovered at once, every other exception keeps the
 * processor's own back-off.</li>
 * <li>a batch (of a batch listener whose container recovers batches after a rollback)
 * that failed for a record delivered again, in progress elsewhere or meeting a store
 * outage is delivered again, never recovered.</li>
 * </ul>
 */
public final class IdempotencyKafkaAfterRollback {

	private IdempotencyKafkaAfterRollback() {
	}

	/**
	 * Create an after-rollback processor with these rules, spring-kafka's default
	 * back-off (nine immediate retries) for every other exception, and the given
	 * recoverer; the offset of a recovered record is committed with the next record's
	 * transaction.
	 * @param recoverer what receives a record that is not retried (a
	 * {@code DeadLetterPublishingRecoverer}, say), or {@code null} for spring-kafka's
	 * default, which logs it
	 * @param backOff the back-off of a record whose key is in progress elsewhere, and of
	 * store failures
	 * @return the after-rollback processor
	 */
	public static DefaultAfterRollbackProcessor<Object, Object> afterRollbackProcessor(
			@Nullable ConsumerRecordRecoverer recoverer, InProgressBackOff backOff) {
		return afterRollbackProcessor(recoverer, backOff, null, false);
	}

	/**
	 * Create an after-rollback processor with these rules, spring-kafka's default
	 * back-off (nine immediate retries) for every other exception, and the given
	 * recoverer.
	 * @param recoverer what receives a record that is not retried, or {@code null} for
	 * spring-kafka's default, which logs it
	 * @param backOff the back-off of a record whose key is in progress elsewhere, and of
	 * store failures
	 * @param kafkaOperations the transactional template that commits the offset of a
	 * recovered record, or {@code null} when {@code commitRecovered} is {@code false}
	 * @param commitRecovered whether to commit the offset of a recovered record in a
	 * transaction of its own at once
	 * @return the after-rollback processor
	 */
	public static DefaultAfterRollbackProcessor<Object, Object> afterRollbackProcessor(
			@Nullable ConsumerRecordRecoverer recoverer, InProgressBackOff backOff,
			@Nullable KafkaOperations<?, ?> kafkaOperations, boolean commitRecovered) {
		Assert.notNull(backOff, "'backOff' must not be null");
		DefaultAfterRollbackProcessor<Object, Object> processor = new IdempotencyAfterRollbackProcessor(recoverer,
				kafkaOperations, commitRecovered);
		applyTo(processor, backOff);
		return processor;
	}

	/**
	 * Apply these rules to an after-rollback processor of the application's, built with
	 * {@link #backOffHandler()}. Like
	 * {@link IdempotencyKafkaErrorHandling#applyTo(DefaultErrorHandler, InProgressBackOff)},
	 * it replaces the processor's back-off function and classifies our exceptions as
	 * retryable; the processor's own back-off must allow at least one retry. It cannot
	 * reach a batch listener's container that recovers batches after a rollback
	 * ({@code batchRecoverAfterRollback} with {@code commitRecovered}): spring-kafka
	 * recovers and commits the whole batch after the processor's own back-off there,
	 * whatever the function says. Build such a processor with
	 * {@link #afterRollbackProcessor(ConsumerRecordRecoverer, InProgressBackOff, KafkaOperations, boolean)}.
	 * @param processor the processor to configure
	 * @param backOff the back-off of a record whose key is in progress elsewhere, and of
	 * store failures
	 */
	public static void applyTo(DefaultAfterRollbackProcessor<?, ?> processor, InProgressBackOff backOff) {
		Assert.notNull(processor, "'processor' must not be null");
		Assert.notNull(backOff, "'backOff' must not be null");
		processor.addRetryableExceptions(IdempotencyInProgressException.class, IdempotencyStoreException.class);
		IdempotencyBackOffs.NOT_RETRYABLE.forEach(processor::addRetryableExceptions);
		processor.setBackOffFunction(new AfterRollbackBackOffs(backOff)::apply);
		processor.setResetStateOnExceptionChange(true);
	}

	/**
	 * Return the back-off handler of an after-rollback processor with these rules: it
	 * does not wait again for a record the error handler has already waited for, and
	 * otherwise does what {@link IdempotencyKafkaErrorHandling#backOffHandler()} does.
	 * @return the back-off handler
	 */
	public static BackOffHandler backOffHandler() {
		return new AfterRollbackBackOffs.Handler(IdempotencyKafkaErrorHandling.backOffHandler());
	}

}
