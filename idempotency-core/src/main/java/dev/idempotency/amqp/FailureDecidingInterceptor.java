package dev.idempotency.amqp;

import java.time.Duration;
import java.util.List;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.messaging.StoreOutageLog;

import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.listener.ListenerExecutionFailedException;

/**
 * The outermost advice of a listener container: turns the exception that
 * {@link FailureCapturingInterceptor} took from the listener into what the container does
 * with the message, by the exceptions Spring AMQP's containers know, in every acknowledge
 * mode but {@code NONE} (where the broker forgot the message on delivery).
 * <ul>
 * <li>Rejected: an {@link AmqpRejectAndDontRequeueException} with {@code rejectManual},
 * so that the container rejects it without requeue (to the queue's dead-letter exchange,
 * if it has one) in {@code MANUAL} mode too, where it otherwise leaves a failed message
 * unacknowledged.</li>
 * <li>Requeued: held by this consumer (not acknowledged, invisible to other consumers)
 * for the back-off, since RabbitMQ cannot requeue with a delay, then a
 * {@link ListenerExecutionFailedException} (anything else would make a simple container
 * restart its consumer) caused by an {@link ImmediateRequeueAmqpException}, which
 * requeues whatever {@code default-requeue-rejected} says. That is caused by an
 * {@link AmqpRejectAndDontRequeueException} with {@code rejectManual} only so that a
 * {@code MANUAL} container sends the negative acknowledgement too: the container decides
 * to requeue by the first of the two in the cause chain.</li>
 * </ul>
 * Each decision is logged in one line by the logger {@code dev.idempotency.amqp}: a
 * requeue of a message whose key is in progress elsewhere, or whose attempt lost its
 * record, at DEBUG (duplicates are handled so; the loss was logged when it happened), a
 * requeue after a store failure as {@link StoreOutageLog} does, and a rejection at WARN.
 * The exceptions are of types of their own, so that an error handler wrapped by
 * {@link DecidedFailuresErrorHandler} does not log them again.
 */
final class FailureDecidingInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(FailureDecidingInterceptor.class.getPackageName());

	private final ThreadLocal<ListenerFailure> captured;

	private final RedeliveryDelays delays;

	private final StoreOutageLog storeOutage = new StoreOutageLog(logger);

	FailureDecidingInterceptor(ThreadLocal<ListenerFailure> captured, RedeliveryDelays delays) {
		this.captured = captured;
		this.delays = delays;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		this.captured.remove();
		ListenerFailure failure;
		try {
			invocation.proceed();
		}
		finally {
			failure = this.captured.get();
			this.captured.remove();
		}
		if (failure == null) {
			this.delays.storeAnswered();
			return null;
		}
		String reason = failure.exception().getMessage();
		if (failure.kind() == ListenerFailure.Kind.REJECT) {
			logger.warn("Rejecting a message without requeue (to its queue's dead-letter exchange, if it has one): "
					+ reason);
			throw new MessageRejectedException("Rejected without requeue: " + reason, failure.exception());
		}
		if (failure.kind() == ListenerFailure.Kind.IN_PROGRESS) {
			this.delays.storeAnswered();
		}
		Duration delay = this.delays.next(failure);
		logRequeue(failure, delay);
		hold(delay);
		throw new MessageRequeuedException("Requeued after " + delay.toMillis() + " ms: " + reason,
				new ImmediateRequeueAmqpException(reason,
						new AmqpRejectAndDontRequeueException(reason, true, failure.exception())),
				messages(invocation.getArguments()));
	}

	private void logRequeue(ListenerFailure failure, Duration delay) {
		String requeue = "Requeueing a message in " + delay.toMillis() + " ms";
		if (failure.exception() instanceof IdempotencyStoreException) {
			this.storeOutage.failed(requeue, failure.exception());
		}
		else if (logger.isDebugEnabled()) {
			logger.debug(requeue + ": " + failure.exception().getMessage());
		}
	}

	@SuppressWarnings("unchecked")
	private static Message[] messages(@Nullable Object[] arguments) {
		Object data = (arguments.length > 1) ? arguments[1] : null;
		if (data instanceof Message message) {
			return new Message[] { message };
		}
		if (data instanceof List<?> list) {
			return ((List<Message>) list).toArray(new Message[0]);
		}
		return new Message[0];
	}

	private static void hold(Duration delay) {
		try {
			Thread.sleep(delay.toMillis());
		}
		catch (InterruptedException ex) {
			// The container is stopping: requeue at once
			Thread.currentThread().interrupt();
			logger.debug("Interrupted while holding a message before requeueing it");
		}
	}

}
