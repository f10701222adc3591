package dev.idempotency.kafka;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * The retries of a record whose key another attempt holds: never stopping, each delay
 * from the {@link InProgressBackOff} by attempt. The first delay is bounded by the lease
 * of the exception that started them; later ones only by {@code maxInterval}, since
 * spring-kafka gives an execution no later exception: {@link LeaseBoundBackOffHandler}
 * bounds each by the lease of the exception it is handed.
 */
final class InProgressRetries implements BackOff {

	private final InProgressBackOff backOff;

	private final IdempotencyInProgressException first;

	InProgressRetries(InProgressBackOff backOff, IdempotencyInProgressException first) {
		this.backOff = backOff;
		this.first = first;
	}

	@Override
	public BackOffExecution start() {
		return new BackOffExecution() {

			private int attempt;

			@Override
			public long nextBackOff() {
				this.attempt = (this.attempt == Integer.MAX_VALUE) ? this.attempt : this.attempt + 1;
				InProgressBackOff backOff = InProgressRetries.this.backOff;
				return ((this.attempt == 1) ? backOff.delay(1, InProgressRetries.this.first)
						: backOff.delay(this.attempt))
					.toMillis();
			}

		};
	}

}
