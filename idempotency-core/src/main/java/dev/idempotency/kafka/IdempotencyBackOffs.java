package dev.idempotency.kafka;

import java.util.function.BiFunction;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The back-off function of an error handler: which back-off a failed record gets, chosen
 * when it first fails with an exception of a type (spring-kafka keeps it while the type
 * stays the same). {@code null} leaves the handler's own back-off.
 */
final class IdempotencyBackOffs implements BiFunction<ConsumerRecord<?, ?>, @Nullable Exception, @Nullable BackOff> {

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
		return null;
	}

	// No attempt limit and no elapsed-time limit: a record waits out the outage
	private BackOff storeRetries() {
		ExponentialBackOff retries = new ExponentialBackOff(this.backOff.initialInterval().toMillis(),
				this.backOff.multiplier());
		retries.setMaxInterval(this.backOff.maxInterval().toMillis());
		return retries;
	}

}
