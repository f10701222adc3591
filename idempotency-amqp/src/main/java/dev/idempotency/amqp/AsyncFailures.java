package dev.idempotency.amqp;

import java.io.IOException;
import java.time.Duration;

import com.rabbitmq.client.Channel;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.core.Message;

/**
 * What becomes of a message whose listener returned a {@code CompletableFuture} or a
 * {@code Mono} that failed with an exception of this library: the same as for a listener
 * that threw it, but settled by this class on the channel, since Spring AMQP settles such
 * a message past the container's advice chain (with a {@code basicReject} that follows
 * {@code default-requeue-rejected}). A message to requeue is held, unacknowledged, for
 * the back-off without holding any thread (the consumer takes no other message meanwhile
 * when its prefetch is 1), then requeued on a thread of the {@link RequeueScheduler}: to
 * the tail of its queue by a {@link TailRequeue} for a key in progress, where it can, or
 * rejected with requeue; one that no redelivery can help is rejected without requeue.
 */
final class AsyncFailures {

	private final RedeliveryDelays delays;

	private final DecisionLog log;

	private final RequeueScheduler scheduler;

	AsyncFailures(RedeliveryDelays delays, DecisionLog log, RequeueScheduler scheduler) {
		this.delays = delays;
		this.log = log;
		this.scheduler = scheduler;
	}

	/**
	 * Settle a message whose listener's result failed, if the failure is one of this
	 * library's.
	 * @param request the message
	 * @param channel the channel it was delivered on
	 * @param thrown what the result failed with
	 * @param tailRequeue how to requeue a message whose key is in progress to the tail of
	 * its queue, or {@code null} to requeue it at the head
	 * @return whether the message was settled (or is to be, after the back-off)
	 */
	boolean settle(Message request, Channel channel, Throwable thrown, @Nullable TailRequeue tailRequeue) {
		ListenerFailure failure = ListenerFailure.of(thrown);
		if (failure == null) {
			return false;
		}
		long tag = request.getMessageProperties().getDeliveryTag();
		if (failure.kind() == ListenerFailure.Kind.REJECT) {
			this.log.rejecting(failure);
			reject(channel, tag, false);
			return true;
		}
		if (failure.kind() == ListenerFailure.Kind.IN_PROGRESS) {
			this.delays.storeAnswered();
		}
		TailRequeue toTail = (failure.kind() == ListenerFailure.Kind.IN_PROGRESS) ? tailRequeue : null;
		Duration delay = this.delays.next(failure, request);
		this.log.requeueing(failure, delay, (toTail != null) ? " (to the tail of its queue)" : "");
		this.scheduler.schedule(delay, () -> {
			if (toTail == null || !toTail.requeue(channel, request)) {
				reject(channel, tag, true);
			}
		});
		return true;
	}

	private void reject(Channel channel, long tag, boolean requeue) {
		try {
			channel.basicReject(tag, requeue);
		}
		catch (IOException | RuntimeException ex) {
			// The channel closed: the broker requeued what it had not settled
			this.log.debug("Could not reject message " + tag + " (requeue=" + requeue + "): " + ex);
		}
	}

}
