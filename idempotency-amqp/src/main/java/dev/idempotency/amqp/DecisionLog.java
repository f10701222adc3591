package dev.idempotency.amqp;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.messaging.StoreOutageLog;

/**
 * The one line each decision about a message is logged in, by the logger
 * {@code dev.idempotency.amqp}, for listeners that return and for those whose
 * {@code CompletableFuture} or {@code Mono} fails alike: a requeue of a message whose key
 * is in progress elsewhere, or whose attempt lost its record, at DEBUG (duplicates are
 * handled so; the loss was logged when it happened), a requeue after a store failure as
 * {@link StoreOutageLog} does, and a rejection at WARN.
 */
final class DecisionLog {

	private static final Log logger = LogFactory.getLog(DecisionLog.class.getPackageName());

	private final StoreOutageLog storeOutage = new StoreOutageLog(logger);

	void rejecting(ListenerFailure failure) {
		logger.warn("Rejecting a message without requeue (to its queue's dead-letter exchange, if it has one): "
				+ failure.exception().getMessage());
	}

	void requeueing(ListenerFailure failure, Duration delay, String how) {
		String requeue = "Requeueing a message in " + delay.toMillis() + " ms" + how;
		if (failure.exception() instanceof IdempotencyStoreException) {
			this.storeOutage.failed(requeue, failure.exception());
		}
		else if (logger.isDebugEnabled()) {
			logger.debug(requeue + ": " + failure.exception().getMessage());
		}
	}

	void debug(String message) {
		logger.debug(message);
	}

}
