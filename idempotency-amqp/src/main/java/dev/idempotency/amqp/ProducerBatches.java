package dev.idempotency.amqp;

import java.util.Collection;
import java.util.Date;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.batch.BatchingStrategy;
import org.springframework.amqp.rabbit.batch.MessageBatch;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;

/**
 * Tells the advice whether the message it runs for was split from a batch a producer sent
 * as one message (a {@code BatchingRabbitTemplate}'s): such messages share the delivery
 * tag of that one message, so acknowledging a copy requeued to the tail would acknowledge
 * every other message of the batch, handled or not. Spring AMQP removes the batch's
 * {@code springBatchFormat} header before it hands the messages over and marks only the
 * last ({@code isLastInBatch}), so the container's batching strategy is wrapped in this
 * one, which marks the thread while it hands them over.
 */
final class ProducerBatches implements BatchingStrategy {

	private static final ThreadLocal<Boolean> splitting = new ThreadLocal<>();

	private final BatchingStrategy delegate;

	private ProducerBatches(BatchingStrategy delegate) {
		this.delegate = delegate;
	}

	/**
	 * Wrap a container's batching strategy, if it is not already.
	 * @param container the container, not started yet
	 */
	static void markIn(AbstractMessageListenerContainer container) {
		BatchingStrategy strategy = SpringAmqpInternals.batchingStrategy(container);
		if (strategy != null && !(strategy instanceof ProducerBatches)) {
			container.setBatchingStrategy(new ProducerBatches(strategy));
		}
	}

	/**
	 * Return whether a message is one of a producer's batch.
	 * @param message the message the listener was called with
	 * @return whether it shares its delivery tag with other messages
	 */
	static boolean isSplit(Message message) {
		return message.getMessageProperties().isLastInBatch() || splitting.get() != null;
	}

	@Override
	public @Nullable MessageBatch addToBatch(String exchange, String routingKey, Message message) {
		return this.delegate.addToBatch(exchange, routingKey, message);
	}

	@Override
	public @Nullable Date nextRelease() {
		return this.delegate.nextRelease();
	}

	@Override
	public Collection<MessageBatch> releaseBatches() {
		return this.delegate.releaseBatches();
	}

	@Override
	public boolean canDebatch(MessageProperties properties) {
		return this.delegate.canDebatch(properties);
	}

	@Override
	public void deBatch(Message message, Consumer<Message> fragmentConsumer) {
		this.delegate.deBatch(message, (fragment) -> {
			boolean outer = splitting.get() != null;
			splitting.set(Boolean.TRUE);
			try {
				fragmentConsumer.accept(fragment);
			}
			finally {
				if (!outer) {
					splitting.remove();
				}
			}
		});
	}

}
