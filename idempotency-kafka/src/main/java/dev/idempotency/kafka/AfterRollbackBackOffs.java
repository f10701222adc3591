package dev.idempotency.kafka;

import java.util.function.BiFunction;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.kafka.listener.BackOffHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The back-off function of an after-rollback processor (see
 * {@link IdempotencyKafkaAfterRollback}): a record the error handler has already decided
 * to deliver again is sought again at once and never recovered, any other record gets the
 * rules of {@link IdempotencyBackOffs}.
 */
final class AfterRollbackBackOffs implements BiFunction<ConsumerRecord<?, ?>, @Nullable Exception, @Nullable BackOff> {

	// What spring-kafka's error handlers throw, inside the transaction, for a record they
	// seek to deliver again (package-private there, so known by name): the rollback
	// that follows must not recover it behind the handler's back
	private static final String IN_RETRY = "org.springframework.kafka.listener.RecordInRetryException";

	private static final BackOff AGAIN_AT_ONCE = new FixedBackOff(0, FixedBackOff.UNLIMITED_ATTEMPTS);

	private final IdempotencyBackOffs rules;

	AfterRollbackBackOffs(InProgressBackOff backOff) {
		this.rules = new IdempotencyBackOffs(backOff);
	}

	@Override
	public @Nullable BackOff apply(ConsumerRecord<?, ?> record, @Nullable Exception exception) {
		return inRetry(exception) ? AGAIN_AT_ONCE : this.rules.apply(record, exception);
	}

	static boolean inRetry(@Nullable Exception exception) {
		return exception != null && IN_RETRY.equals(exception.getClass().getName());
	}

	/**
	 * Waits and logs as the error handler's back-off handler does, but neither for a
	 * record the error handler has already waited for.
	 */
	static final class Handler implements BackOffHandler {

		private final BackOffHandler delegate;

		Handler(BackOffHandler delegate) {
			this.delegate = delegate;
		}

		@Override
		public void onNextBackOff(@Nullable MessageListenerContainer container, @Nullable Exception exception,
				long nextBackOff) {
			if (!inRetry(exception)) {
				this.delegate.onNextBackOff(container, exception, nextBackOff);
			}
		}

	}

}
