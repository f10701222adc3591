package dev.idempotency.kafka;

import java.util.List;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.BatchAcknowledgingConsumerAwareMessageListener;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.adapter.AbstractDelegatingMessageListenerAdapter;
import org.springframework.kafka.support.Acknowledgment;

/**
 * A batch listener whose result is awaited, reporting itself synchronous (see
 * {@link AwaitedListeners}); it may take the whole poll result.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class AwaitedBatchListener<K, V> extends AbstractDelegatingMessageListenerAdapter<BatchMessageListener<K, V>>
		implements BatchAcknowledgingConsumerAwareMessageListener<K, V> {

	AwaitedBatchListener(BatchMessageListener<K, V> delegate) {
		super(delegate);
	}

	@Override
	public boolean isAsyncReplies() {
		return false;
	}

	@Override
	public boolean wantsPollResult() {
		return this.delegate.wantsPollResult();
	}

	@Override
	public void onMessage(List<ConsumerRecord<K, V>> data, @Nullable Acknowledgment acknowledgment,
			@Nullable Consumer<?, ?> consumer) {
		this.delegate.onMessage(data, new AwaitedAcknowledgment(acknowledgment), consumer);
	}

	@Override
	public void onMessage(ConsumerRecords<K, V> records, @Nullable Acknowledgment acknowledgment,
			Consumer<K, V> consumer) {
		this.delegate.onMessage(records, new AwaitedAcknowledgment(acknowledgment), consumer);
	}

}
