package dev.idempotency.amqp;

import java.lang.reflect.Method;

import com.rabbitmq.client.Channel;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.listener.adapter.MessagingMessageListenerAdapter;
import org.springframework.amqp.rabbit.listener.api.RabbitListenerErrorHandler;

/**
 * Spring AMQP's listener adapter, but that a {@code CompletableFuture} or {@code Mono}
 * the listener returned that fails with an exception of this library settles its message
 * by {@link AsyncFailures}, before the endpoint's {@code RabbitListenerErrorHandler} and
 * the adapter's own {@code basicReject}.
 */
final class AsyncDecidingListenerAdapter extends MessagingMessageListenerAdapter {

	private final AsyncFailures failures;

	private volatile @Nullable TailRequeue tailRequeue;

	AsyncDecidingListenerAdapter(@Nullable Object bean, @Nullable Method method, boolean returnExceptions,
			@Nullable RabbitListenerErrorHandler errorHandler, AsyncFailures failures) {
		super(bean, method, returnExceptions, errorHandler);
		this.failures = failures;
	}

	/**
	 * Requeue the messages of keys in progress to the tail of their queue by the given
	 * requeue, which knows the container.
	 * @param tailRequeue the requeue
	 */
	void requeueToTail(TailRequeue tailRequeue) {
		this.tailRequeue = tailRequeue;
	}

	@Override
	protected void asyncFailure(Message request, @Nullable Channel channel, Throwable t, @Nullable Object source) {
		if (channel == null || !this.failures.settle(request, channel, t, this.tailRequeue)) {
			super.asyncFailure(request, channel, t, source);
		}
	}

}
