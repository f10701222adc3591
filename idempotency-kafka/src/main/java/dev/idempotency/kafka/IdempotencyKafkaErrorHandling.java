package dev.idempotency.kafka;

import java.util.function.BiFunction;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyPayloadException;
import dev.idempotency.IdempotencyReplayException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.kafka.listener.BackOffHandler;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DefaultBackOffHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.util.Assert;
import org.springframework.util.backoff.BackOff;

/**
 * The rules by which a spring-kafka {@link DefaultErrorHandler} treats the exceptions of
 * {@code @Idempotent} listeners:
 * <ul>
 * <li>{@link IdempotencyInProgressException}: the record is delivered again after the
 * {@link InProgressBackOff} delay, as often as it takes, and never handed to the
 * recoverer (which would commit it): the other attempt may still fail, and then this
 * delivery must run. Each delay is at most the other attempt's remaining lease (with the
 * {@link #backOffHandler() back-off handler} of this class), so that a record whose first
 * attempt died is taken over as soon as its lease runs out, and at most
 * {@code maxInterval}, so that the consumer polls again well within
 * {@code max.poll.interval.ms}; nor longer than half of a {@code max.poll.interval.ms}
 * that the listener's container sets (with a WARN naming both settings), since a consumer
 * that sleeps past it leaves its group.</li>
 * <li>{@link IdempotencyStoreException} (the store is unreachable): retried with the same
 * exponential back-off, bounded by {@code maxInterval} and without an attempt limit, so
 * that an outage never turns into skipped records.</li>
 * <li>{@link IdempotencyKeyReuseException}, {@link IdempotencyKeyException},
 * {@link IdempotencyPayloadException} and {@link IdempotencyReplayException}: handed to
 * the recoverer at once, without retries, with a WARN naming the record. Each follows
 * from the record and the stored outcome, so every retry would fail the same way until
 * the record expires, and a retry after that would run the work again.</li>
 * <li>Every other exception keeps the handler's own back-off and classification.</li>
 * </ul>
 * Our exceptions are found as the exception the listener threw or among its causes.
 * <p>
 * What an operator reads, from the logger {@code dev.idempotency.kafka}: each retry of a
 * record whose key is in progress elsewhere in one line at DEBUG (it is how duplicates
 * are handled, not a failure), naming the operation, the key and the delay; a store
 * failure in one line at DEBUG, with a WARN and the failure's stack trace at most once a
 * minute; and a WARN for each record handed to the recoverer. The retry lines come from
 * the {@link #backOffHandler() back-off handler}.
 * <p>
 * The handler built by {@link #errorHandler(ConsumerRecordRecoverer, InProgressBackOff)}
 * has all of this; an application that builds its own handler applies the rules with
 * {@link #applyTo(DefaultErrorHandler, InProgressBackOff)}, and passes
 * {@link #backOffHandler()} to its constructor for the lease bound.
 */
public final class IdempotencyKafkaErrorHandling {

	private IdempotencyKafkaErrorHandling() {
	}

	/**
	 * Create an error handler with these rules, spring-kafka's default back-off (nine
	 * immediate retries) for every other exception, and the given recoverer.
	 * @param recoverer what receives a record that is not retried (a
	 * {@code DeadLetterPublishingRecoverer}, say), or {@code null} for spring-kafka's
	 * default, which logs it; either way its offset is then committed
	 * @param backOff the back-off of a record whose key is in progress elsewhere, and of
	 * store failures
	 * @return the error handler
	 */
	public static DefaultErrorHandler errorHandler(@Nullable ConsumerRecordRecoverer recoverer,
			InProgressBackOff backOff) {
		DefaultErrorHandler handler = new IdempotencyErrorHandler(recoverer);
		applyTo(handler, backOff);
		return handler;
	}

	/**
	 * Create an error handler like
	 * {@link #errorHandler(ConsumerRecordRecoverer, InProgressBackOff)} that waits out
	 * each back-off by pausing only the partition of the record that waits, instead of
	 * sleeping on the consumer thread: the consumer goes on polling the other partitions
	 * it was assigned, and the record is fetched again once its partition is resumed. The
	 * handler's retry listener learns which partition to pause:
	 * {@link DefaultErrorHandler#setRetryListeners} would replace it, and the consumer
	 * thread would then sleep again. It is the handler the starter's auto-configuration
	 * defines, unless {@code idempotency.messaging.kafka-pause-partitions} is
	 * {@code false}.
	 * @param recoverer what receives a record that is not retried, or {@code null} for
	 * spring-kafka's default, which logs it
	 * @param backOff the back-off of a record whose key is in progress elsewhere, and of
	 * store failures
	 * @param scheduler what resumes each partition when its delay has passed
	 * @return the error handler
	 */
	public static DefaultErrorHandler partitionPausingErrorHandler(@Nullable ConsumerRecordRecoverer recoverer,
			InProgressBackOff backOff, TaskScheduler scheduler) {
		Assert.notNull(scheduler, "'scheduler' must not be null");
		PartitionPausingBackOffHandler pauser = new PartitionPausingBackOffHandler(scheduler);
		DefaultErrorHandler handler = new IdempotencyErrorHandler(recoverer, backOffHandler(pauser));
		handler.setRetryListeners(pauser);
		applyTo(handler, backOff);
		return handler;
	}

	/**
	 * Apply these rules to an error handler of the application's. It replaces the
	 * handler's back-off function (to keep one of your own as well, set afterwards a
	 * function that asks {@link #backOffFunction(InProgressBackOff)} first) and
	 * classifies our exceptions as retryable, so that the function decides: those that no
	 * retry can fix get a back-off without retries. The handler's own back-off must allow
	 * at least one retry: with none, spring-kafka recovers every record at once and never
	 * asks the back-off function. Asynchronous listeners (see
	 * {@link KafkaAsyncListenerAdvisor}) need nothing more in the containers of a factory
	 * bean ({@link KafkaAsyncListenerContainers}); in any other container that commits
	 * them out of order, after a recovered record spring-kafka keeps that consumer paused
	 * for good, waiting for the acknowledgement of the records the handler sought back,
	 * and {@link #errorHandler(ConsumerRecordRecoverer, InProgressBackOff)} builds a
	 * handler that reports them in retry (outside transactions). Without
	 * {@link #backOffHandler()} the delays are not bounded by the other attempt's lease,
	 * only by {@code maxInterval}, and the retries are not logged.
	 * @param handler the handler to configure
	 * @param backOff the back-off of a record whose key is in progress elsewhere, and of
	 * store failures
	 */
	public static void applyTo(DefaultErrorHandler handler, InProgressBackOff backOff) {
		Assert.notNull(handler, "'handler' must not be null");
		Assert.notNull(backOff, "'backOff' must not be null");
		classify(handler);
		handler.setBackOffFunction(backOffFunction(backOff));
		// A record that met a store failure and then an attempt in progress starts the
		// in-progress back-off afresh, and the other way round
		handler.setResetStateOnExceptionChange(true);
	}

	// Retryable, so that the back-off function decides, also for a handler whose
	// classification defaults to false: no retries for the exceptions that no retry can
	// fix, but a warning, which spring-kafka would not log
	static void classify(DefaultErrorHandler handler) {
		handler.addRetryableExceptions(IdempotencyInProgressException.class, IdempotencyStoreException.class);
		IdempotencyBackOffs.NOT_RETRYABLE.forEach(handler::addRetryableExceptions);
	}

	/**
	 * Return the back-off function of these rules: the back-off of a record that failed
	 * with {@link IdempotencyInProgressException} or {@link IdempotencyStoreException},
	 * one without retries (that logs a WARN) for the exceptions that no retry can fix,
	 * and {@code null} (the handler's own back-off) for any other exception.
	 * @param backOff the back-off of a record whose key is in progress elsewhere, and of
	 * store failures
	 * @return the function, for {@link DefaultErrorHandler#setBackOffFunction}
	 */
	public static BiFunction<ConsumerRecord<?, ?>, Exception, @Nullable BackOff> backOffFunction(
			InProgressBackOff backOff) {
		Assert.notNull(backOff, "'backOff' must not be null");
		IdempotencyBackOffs backOffs = new IdempotencyBackOffs(backOff);
		return backOffs::apply;
	}

	/**
	 * Return a back-off handler that waits no longer than the remaining lease of the
	 * attempt that holds a record's key (at least 1 ms), and otherwise as spring-kafka's
	 * default handler does: the consumer thread sleeps, waking early when the container
	 * stops. It logs each retry for our exceptions in one line (see above).
	 * @return the back-off handler
	 */
	public static BackOffHandler backOffHandler() {
		return backOffHandler(new DefaultBackOffHandler());
	}

	/**
	 * Return a back-off handler that bounds the delay of a record whose key is in
	 * progress elsewhere by the remaining lease of that attempt (at least 1 ms), logs
	 * each retry for our exceptions in one line (see above), and hands every delay to
	 * another handler. Not spring-kafka's {@code ContainerPausingBackOffHandler}, which
	 * pauses every partition of the consumer, not only the record's: to let the other
	 * partitions go on, use
	 * {@link #partitionPausingErrorHandler(ConsumerRecordRecoverer, InProgressBackOff, TaskScheduler)}.
	 * @param delegate the handler that waits
	 * @return the back-off handler
	 */
	public static BackOffHandler backOffHandler(BackOffHandler delegate) {
		Assert.notNull(delegate, "'delegate' must not be null");
		return new LeaseBoundBackOffHandler(delegate);
	}

}
