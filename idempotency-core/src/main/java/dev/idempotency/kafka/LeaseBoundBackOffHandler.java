package dev.idempotency.kafka;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyInProgressException;

import org.springframework.kafka.listener.BackOffHandler;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * Hands each back-off to another handler, but for a record whose key is in progress
 * elsewhere never a longer one than that attempt's remaining lease, read from the
 * exception of this very delivery: when the lease runs out the attempt may have died, and
 * the redelivery can take it over.
 */
final class LeaseBoundBackOffHandler implements BackOffHandler {

	private final BackOffHandler delegate;

	LeaseBoundBackOffHandler(BackOffHandler delegate) {
		this.delegate = delegate;
	}

	@Override
	public void onNextBackOff(@Nullable MessageListenerContainer container, @Nullable Exception exception,
			long nextBackOff) {
		this.delegate.onNextBackOff(container, exception, delay(exception, nextBackOff));
	}

	static long delay(@Nullable Exception exception, long nextBackOff) {
		IdempotencyInProgressException inProgress = IdempotencyExceptions.find(exception,
				IdempotencyInProgressException.class);
		if (inProgress == null) {
			return nextBackOff;
		}
		return Math.max(1, Math.min(nextBackOff, inProgress.getRetryAfter().toMillis()));
	}

}
