package dev.idempotency.kafka;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.AcknowledgingConsumerAwareMessageListener;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.adapter.AbstractDelegatingMessageListenerAdapter;
import org.springframework.kafka.support.Acknowledgment;

/**
 * A record listener whose result is awaited, reporting itself synchronous (see
 * {@link AwaitedListeners}). The container invokes the innermost listener's variant,
 * which for spring-kafka's adapters is this one.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class AwaitedRecordListener<K, V> extends AbstractDelegatingMessageListenerAdapter<MessageListener<K, V>>
		implements AcknowledgingConsumerAwareMessageListener<K, V> {

	AwaitedRecordListener(MessageListener<K, V> delegate) {
		super(delegate);
	}

	@Override
	public boolean isAsyncReplies() {
		return false;
	}

	@Override
	public void onMessage(ConsumerRecord<K, V> data, @Nullable Acknowledgment acknowledgment,
			@Nullable Consumer<?, ?> consumer) {
		this.delegate.onMessage(data, new AwaitedAcknowledgment(acknowledgment), consumer);
	}

}
