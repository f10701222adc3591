package dev.idempotency.amqp;

import org.springframework.amqp.AmqpRejectAndDontRequeueException;

/**
 * What {@link FailureDecidingInterceptor} throws for a message that no redelivery can
 * help: rejected without requeue, in {@code MANUAL} acknowledge mode too, and of a type
 * that tells {@link DecidedFailuresErrorHandler} that it is logged already.
 */
final class MessageRejectedException extends AmqpRejectAndDontRequeueException {

	MessageRejectedException(String message, Throwable cause) {
		super(message, true, cause);
	}

}
