package dev.idempotency.amqp;

import java.time.Duration;
import java.util.List;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.listener.ListenerExecutionFailedException;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;

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
 * <p>
 * In a container it was {@linkplain #forContainer made for}, a message whose key is in
 * progress is requeued to the tail of its queue instead, where that can be done safely
 * (see {@link TailRequeue}; not a message split from a producer's batch, see
 * {@link ProducerBatches}), so that the copies of a key in progress do not come back
 * ahead of every other message, each to be held by the next free consumer, and occupy
 * every consumer for as long as the first attempt runs. The message is then acknowledged,
 * and the listener returns. Every advice of a configurer makes the copies it is handed
 * look as the messages they copy (see {@link TailCopies#restore}).
 * <p>
 * Each decision is logged in one line by {@link DecisionLog}. The exceptions are of types
 * of their own, so that an error handler wrapped by {@link DecidedFailuresErrorHandler}
 * does not log them again.
 */
final class FailureDecidingInterceptor implements MethodInterceptor {

	private final ThreadLocal<ListenerFailure> captured;

	private final RedeliveryDelays delays;

	private final DecisionLog log;

	private final @Nullable TailRequeue tailRequeue;

	FailureDecidingInterceptor(ThreadLocal<ListenerFailure> captured, RedeliveryDelays delays, DecisionLog log,
			@Nullable TailRequeue tailRequeue) {
		this.captured = captured;
		this.delays = delays;
		this.log = log;
		this.tailRequeue = tailRequeue;
	}

	/**
	 * Return an interceptor that decides as this one does, for one container, and
	 * requeues the messages of keys in progress to the tail of their queue.
	 * @param container the container
	 * @param publishers the publishers of the copies, shared by the configurer's
	 * containers
	 * @return the interceptor
	 */
	FailureDecidingInterceptor forContainer(AbstractMessageListenerContainer container,
			CopyPublisher.Shared publishers) {
		return new FailureDecidingInterceptor(this.captured, this.delays, this.log,
				new TailRequeue(container, publishers, this.log));
	}

	/**
	 * Return whether this interceptor is the given one or one made
	 * {@linkplain #forContainer for a container} from it.
	 * @param other the interceptor
	 * @return whether both decide on what the same innermost advice captured
	 */
	boolean decidesAs(FailureDecidingInterceptor other) {
		return this.captured == other.captured;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		@Nullable Object[] arguments = invocation.getArguments();
		Message[] messages = messages(arguments);
		// Before the listener, and its key, see it: a copy requeued to the tail was
		// published under the queue's name
		for (Message message : messages) {
			TailCopies.restore(message);
		}
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
			this.log.rejecting(failure);
			throw new MessageRejectedException("Rejected without requeue: " + reason, failure.exception());
		}
		Message single = (messages.length == 1 && !(arguments[1] instanceof List)) ? messages[0] : null;
		// A message split from a producer's batch shares the batch's delivery tag:
		// acknowledging a copy of it would acknowledge the whole batch
		boolean toTail = failure.kind() == ListenerFailure.Kind.IN_PROGRESS && this.tailRequeue != null
				&& single != null && !ProducerBatches.isSplit(single);
		if (failure.kind() == ListenerFailure.Kind.IN_PROGRESS) {
			this.delays.storeAnswered();
		}
		Duration delay = this.delays.next(failure, single);
		this.log.requeueing(failure, delay, toTail ? " (to the tail of its queue)" : "");
		hold(delay);
		// A container that stops interrupts the hold: requeue at once, where RabbitMQ
		// does
		if (toTail && !Thread.currentThread().isInterrupted() && this.tailRequeue.requeue(arguments[0], single)) {
			return null;
		}
		throw new MessageRequeuedException("Requeued after " + delay.toMillis() + " ms: " + reason,
				new ImmediateRequeueAmqpException(reason,
						new AmqpRejectAndDontRequeueException(reason, true, failure.exception())),
				messages);
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

	private void hold(Duration delay) {
		try {
			Thread.sleep(delay.toMillis());
		}
		catch (InterruptedException ex) {
			// The container is stopping: requeue at once
			Thread.currentThread().interrupt();
			this.log.debug("Interrupted while holding a message before requeueing it");
		}
	}

}
