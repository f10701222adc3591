package dev.idempotency.kafka;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.messaging.StoreOutageLog;

import org.springframework.kafka.listener.BackOffHandler;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * Hands each back-off to another handler, but for a record whose key is in progress
 * elsewhere never a longer one than that attempt's remaining lease, read from the
 * exception of this very delivery: when the lease runs out the attempt may have died, and
 * the redelivery can take it over. Neither such a delay nor one after a store failure is
 * longer than half of the consumer's {@code max.poll.interval.ms} (see
 * {@link PollIntervalBound}).
 * <p>
 * It logs each retry it delays for one of our exceptions in one line: at DEBUG for a key
 * in progress elsewhere, which is how duplicates are handled, and for a store failure as
 * {@link StoreOutageLog} does. spring-kafka logs none of them beyond a line at INFO.
 */
final class LeaseBoundBackOffHandler implements BackOffHandler {

	private static final Log logger = LogFactory.getLog(LeaseBoundBackOffHandler.class.getPackageName());

	private final BackOffHandler delegate;

	private final StoreOutageLog storeOutage = new StoreOutageLog(logger);

	private final PollIntervalBound pollInterval = new PollIntervalBound(logger);

	LeaseBoundBackOffHandler(BackOffHandler delegate) {
		this.delegate = delegate;
	}

	@Override
	public void onNextBackOff(@Nullable MessageListenerContainer container, @Nullable Exception exception,
			long nextBackOff) {
		IdempotencyInProgressException inProgress = IdempotencyExceptions.find(exception,
				IdempotencyInProgressException.class);
		long delay = nextBackOff;
		if (inProgress != null) {
			delay = this.pollInterval.bound(container,
					Math.max(1, Math.min(nextBackOff, inProgress.getRetryAfter().toMillis())));
			if (logger.isDebugEnabled()) {
				logger.debug(redelivery(container, delay) + ": " + inProgress.getMessage());
			}
		}
		else {
			IdempotencyStoreException storeFailure = IdempotencyExceptions.find(exception,
					IdempotencyStoreException.class);
			if (storeFailure != null) {
				delay = this.pollInterval.bound(container, delay);
				this.storeOutage.failed(redelivery(container, delay), storeFailure);
			}
		}
		this.delegate.onNextBackOff(container, exception, delay);
	}

	private static String redelivery(@Nullable MessageListenerContainer container, long delay) {
		String listener = (container != null) ? " of listener '" + container.getListenerId() + "'" : "";
		return "Delivering a record" + listener + " again in " + delay + " ms";
	}

}
