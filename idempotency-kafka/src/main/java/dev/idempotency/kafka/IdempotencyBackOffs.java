package dev.idempotency.kafka;

import java.util.List;
import java.util.function.BiFunction;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyPayloadException;
import dev.idempotency.IdempotencyReplayException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The back-off function of an error handler: which back-off a failed record gets, chosen
 * when it first fails with an exception of a type (spring-kafka keeps it while the type
 * stays the same). {@code null} leaves the handler's own back-off.
 */
final class IdempotencyBackOffs implements BiFunction<ConsumerRecord<?, ?>, @Nullable Exception, @Nullable BackOff> {

	// They follow from the record and the stored outcome: every retry would fail the same
	// way. Retryable to spring-kafka all the same (see IdempotencyKafkaErrorHandling), so
	// that this function decides, and warns.
	static final List<Class<? extends RuntimeException>> NOT_RETRYABLE = List.of(IdempotencyKeyReuseException.class,
			IdempotencyKeyException.class, IdempotencyPayloadException.class, IdempotencyReplayException.class);

	private static final Log logger = LogFactory.getLog(IdempotencyBackOffs.class.getPackageName());

	private final InProgressBackOff backOff;

	IdempotencyBackOffs(InProgressBackOff backOff) {
		this.backOff = backOff;
	}

	@Override
	public @Nullable BackOff apply(ConsumerRecord<?, ?> record, @Nullable Exception exception) {
		IdempotencyInProgressException inProgress = IdempotencyExceptions.find(exception,
				IdempotencyInProgressException.class);
		if (inProgress != null) {
			return new InProgressRetries(this.backOff, inProgress);
		}
		if (IdempotencyExceptions.find(exception, IdempotencyStoreException.class) != null) {
			return storeRetries();
		}
		for (Class<? extends RuntimeException> type : NOT_RETRYABLE) {
			RuntimeException notRetryable = IdempotencyExceptions.find(exception, type);
			if (notRetryable != null) {
				return giveUp(record, notRetryable);
			}
		}
		return null;
	}

	// No attempt limit and no elapsed-time limit: a record waits out the outage
	private BackOff storeRetries() {
		ExponentialBackOff retries = new ExponentialBackOff(this.backOff.initialInterval().toMillis(),
				this.backOff.multiplier());
		retries.setMaxInterval(this.backOff.maxInterval().toMillis());
		return retries;
	}

	// No retry, and the one warning of a record given up: the recoverer may say nothing
	private static BackOff giveUp(ConsumerRecord<?, ?> record, RuntimeException reason) {
		return () -> () -> {
			logger.warn("Handing record " + record.topic() + "-" + record.partition() + "@" + record.offset()
					+ " to the recoverer (a dead-letter topic, say) without retries: " + reason.getMessage());
			return BackOffExecution.STOP;
		};
	}

}
