package dev.idempotency.autoconfigure.amqp;

import dev.idempotency.amqp.IdempotencyRabbitListenerConfigurer;

import org.springframework.amqp.core.MessageListenerContainer;
import org.springframework.amqp.listener.ConditionalRejectingErrorHandler;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

/**
 * Gives every listener container of the registry whose error handler is Spring AMQP's
 * default one the {@link IdempotencyRabbitListenerConfigurer#errorHandler error handler}
 * of the configurer around it, before the registry starts them: otherwise each requeued
 * duplicate is logged again at WARN with a stack trace. An error handler of the
 * application's own is left as it is, since it may do more than log.
 * <p>
 * A lifecycle of the earliest phase, since the containers exist only once every singleton
 * is, and factories offer no way to read the error handler they give a container.
 */
final class ListenerContainerErrorHandlers implements SmartLifecycle {

	private final ObjectProvider<RabbitListenerEndpointRegistry> registry;

	private final ObjectProvider<IdempotencyRabbitListenerConfigurer> configurer;

	private volatile boolean running;

	ListenerContainerErrorHandlers(ObjectProvider<RabbitListenerEndpointRegistry> registry,
			ObjectProvider<IdempotencyRabbitListenerConfigurer> configurer) {
		this.registry = registry;
		this.configurer = configurer;
	}

	@Override
	public void start() {
		this.registry.ifAvailable((registry) -> this.configurer.ifAvailable((configurer) -> {
			for (MessageListenerContainer container : registry.getListenerContainers()) {
				if (container instanceof AbstractMessageListenerContainer listenerContainer
						&& listenerContainer.getErrorHandler().getClass() == ConditionalRejectingErrorHandler.class) {
					listenerContainer.setErrorHandler(configurer.errorHandler(listenerContainer.getErrorHandler()));
				}
			}
		}));
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return Integer.MIN_VALUE;
	}

}
