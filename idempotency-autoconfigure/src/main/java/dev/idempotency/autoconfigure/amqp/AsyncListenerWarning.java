package dev.idempotency.autoconfigure.amqp;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.amqp.IdempotencyRabbitListenerConfigurer;

import org.springframework.amqp.core.MessageListenerContainer;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Warns, once the listener containers exist, of each whose listener returns a
 * {@code CompletableFuture} or {@code Mono} that the rules could not be given to (a
 * class-level {@code @RabbitListener}, a batch listener, a container not created by a
 * factory bean or by one that cannot be proxied): Spring AMQP rejects such a failed
 * result with {@code default-requeue-rejected} as the only rule, so a copy of a key in
 * progress, or a message that meets a store outage, may be dead-lettered. Not refused,
 * since such a listener may call no {@code @Idempotent} work.
 */
final class AsyncListenerWarning implements ApplicationListener<ContextRefreshedEvent> {

	private static final Log logger = LogFactory.getLog(AsyncListenerWarning.class);

	private final ObjectProvider<RabbitListenerEndpointRegistry> registry;

	AsyncListenerWarning(ObjectProvider<RabbitListenerEndpointRegistry> registry) {
		this.registry = registry;
	}

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		this.registry.ifAvailable((registry) -> {
			for (MessageListenerContainer container : registry.getListenerContainers()) {
				if (container instanceof AbstractMessageListenerContainer listenerContainer
						&& !IdempotencyRabbitListenerConfigurer
							.settlesAsyncResults(listenerContainer.getMessageListener())) {
					logger.warn("RabbitMQ listener container '" + listenerContainer.getListenerId()
							+ "' has a listener that returns a CompletableFuture or Mono whose failures Spring AMQP"
							+ " rejects by default-requeue-rejected alone: if it calls @Idempotent work, a message"
							+ " whose key is in progress or that meets an unavailable store may be dead-lettered;"
							+ " return void and wait for the result in the listener, or use a @RabbitListener"
							+ " method on a container from a factory bean");
				}
			}
		});
	}

}
