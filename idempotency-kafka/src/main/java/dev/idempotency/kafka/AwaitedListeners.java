package dev.idempotency.kafka;

import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.adapter.AsyncRepliesAware;

/**
 * Makes a listener container treat a listener whose result the
 * {@link KafkaAsyncListenerAdvisor} awaits as the synchronous listener it then is.
 * spring-kafka decides from the declared result type alone that a listener is
 * asynchronous ({@code isAsyncReplies()}), and then commits out of order: it forces a
 * manual ack mode, tracks each record of a poll until its acknowledgement comes, and
 * pauses the consumer while any is missing. With the result awaited on the consumer
 * thread that tracking only does harm: the records that an error handler or an
 * after-rollback processor seeks back after a recovered one are never acknowledged, and
 * the consumer stays paused for good. Wrapped, the listener reports itself synchronous,
 * so the container keeps its own ack mode and commits as it does for any listener once
 * the listener has returned.
 */
final class AwaitedListeners {

	private AwaitedListeners() {
	}

	/**
	 * Wrap the container's listener if spring-kafka would take it as asynchronous; leave
	 * it as it is if the container was told to commit out of order ({@code asyncAcks}),
	 * which it then does whatever the listener reports.
	 * @param container a container not yet started
	 */
	static void install(MessageListenerContainer container) {
		ContainerProperties properties = container.getContainerProperties();
		Object listener = properties.getMessageListener();
		if (properties.isAsyncAcks() || !(listener instanceof AsyncRepliesAware aware) || !aware.isAsyncReplies()) {
			return;
		}
		if (listener instanceof BatchMessageListener<?, ?> batch) {
			container.setupMessageListener(new AwaitedBatchListener<>(batch));
		}
		else if (listener instanceof MessageListener<?, ?> record) {
			container.setupMessageListener(new AwaitedRecordListener<>(record));
		}
	}

}
