package dev.idempotency.amqp;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.listener.ListenerExecutionFailedException;

/**
 * What {@link FailureDecidingInterceptor} throws for a message it held and now requeues:
 * a {@link ListenerExecutionFailedException}, as the containers expect of a listener,
 * whose type tells {@link DecidedFailuresErrorHandler} that it is logged already.
 */
final class MessageRequeuedException extends ListenerExecutionFailedException {

	MessageRequeuedException(String message, Throwable cause, Message... failedMessages) {
		super(message, cause, failedMessages);
	}

}
