package dev.idempotency.amqp;

import java.io.IOException;
import java.time.Duration;

import com.rabbitmq.client.Channel;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;

/**
 * Requeues a held message behind the others of its queue, where RabbitMQ would put it
 * back at the head (and so hand it to the next free consumer at once, ahead of every
 * other message): publishes a copy to the queue it was consumed from, through the default
 * exchange, and acknowledges the message only once the broker confirmed the copy was
 * queued. The copy keeps the body, the headers and the properties the message was
 * delivered with, its delivery mode, user id, exchange, routing key and retry count
 * included (see {@link TailCopies}); it carries {@value RedeliveryDelays#REQUEUES} (one
 * more than the message did), and not the {@code x-delivery-count} that is the broker's
 * to set.
 * <p>
 * It does so only where no message can be lost: a single message (not a batch), in a
 * container that acknowledges in {@code AUTO} or {@code MANUAL} mode on a channel that is
 * not transacted, consumed from a queue it knows, whose connection factory has a
 * publisher connection factory (and is not a routing one). The copy goes on the publisher
 * connection (see {@link CopyPublisher}), never the consumers' one, on a channel in
 * confirm mode, published as mandatory: a copy the broker did not confirm within
 * {@value #CONFIRM_SECONDS} s, returned as unroutable, or not published because the
 * broker blocks publishers, leaves the message to be requeued as RabbitMQ does. A
 * consumer that dies between the confirmation and the acknowledgement leaves both the
 * copy and the message queued: a duplicate, which {@code @Idempotent} work replays.
 */
final class TailRequeue {

	static final int CONFIRM_SECONDS = 5;

	private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(CONFIRM_SECONDS);

	private final AbstractMessageListenerContainer container;

	private final CopyPublisher.Shared publishers;

	private volatile @Nullable CopyPublisher publisher;

	private final DecisionLog log;

	TailRequeue(AbstractMessageListenerContainer container, CopyPublisher.Shared publishers, DecisionLog log) {
		this.container = container;
		this.publishers = publishers;
		this.log = log;
		// Now, to watch the publisher connection before anything is published on it
		publisher();
	}

	/**
	 * Requeue a message to the tail of its queue, if it can be done safely.
	 * @param consumerChannel the channel the message was delivered on
	 * @param message the message
	 * @return whether it was: the copy is queued, and the message acknowledged (in
	 * {@code MANUAL} mode) or to be acknowledged by the container (in {@code AUTO} mode)
	 */
	boolean requeue(@Nullable Object consumerChannel, Message message) {
		AcknowledgeMode mode = this.container.getAcknowledgeMode();
		String queue = message.getMessageProperties().getConsumerQueue();
		if (!(consumerChannel instanceof Channel channel) || queue == null || this.container.isChannelTransacted()
				|| (mode != AcknowledgeMode.AUTO && mode != AcknowledgeMode.MANUAL)) {
			return false;
		}
		if (!publish(queue, message)) {
			return false;
		}
		if (mode == AcknowledgeMode.MANUAL) {
			try {
				channel.basicAck(message.getMessageProperties().getDeliveryTag(), false);
			}
			catch (IOException | RuntimeException ex) {
				// The channel closed: the broker requeues the message, a duplicate of the
				// copy
				this.log.debug("Could not acknowledge a message requeued to the tail of '" + queue + "': " + ex);
			}
		}
		return true;
	}

	private boolean publish(String queue, Message message) {
		CopyPublisher publisher = publisher();
		if (publisher == null) {
			return false;
		}
		try {
			publisher.publish("", queue, TailCopies.properties(message), message.getBody());
			return true;
		}
		catch (IOException | RuntimeException ex) {
			this.log
				.debug("Could not requeue a message to the tail of '" + queue + "', requeueing it at its head: " + ex);
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	// The container's connection factory is set once it is created, before it starts
	private @Nullable CopyPublisher publisher() {
		CopyPublisher publisher = this.publisher;
		if (publisher == null) {
			publisher = this.publishers.forContainer(this.container.getConnectionFactory());
			this.publisher = publisher;
		}
		return publisher;
	}

	/**
	 * Return the publishers that the requeues of one configurer's containers share.
	 * @return the publishers
	 */
	static CopyPublisher.Shared publishers() {
		return new CopyPublisher.Shared(CONFIRM_TIMEOUT);
	}

}
