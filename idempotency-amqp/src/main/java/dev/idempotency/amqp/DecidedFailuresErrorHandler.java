package dev.idempotency.amqp;

import org.springframework.util.Assert;
import org.springframework.util.ErrorHandler;

/**
 * A listener container's error handler that hands another every exception but those of
 * the messages {@link FailureDecidingInterceptor} requeued or rejected, which it logged
 * in one line each. Spring AMQP's default handler would log each of them again at WARN
 * with its stack trace, about fifty lines for a duplicate that is merely requeued, and
 * does nothing else with them.
 */
final class DecidedFailuresErrorHandler implements ErrorHandler {

	private final ErrorHandler delegate;

	DecidedFailuresErrorHandler(ErrorHandler delegate) {
		Assert.notNull(delegate, "'delegate' must not be null");
		this.delegate = delegate;
	}

	@Override
	public void handleError(Throwable throwable) {
		if (!(throwable instanceof MessageRequeuedException) && !(throwable instanceof MessageRejectedException)) {
			this.delegate.handleError(throwable);
		}
	}

}
