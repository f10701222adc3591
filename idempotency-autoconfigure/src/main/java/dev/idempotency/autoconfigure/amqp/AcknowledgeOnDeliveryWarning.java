package dev.idempotency.autoconfigure.amqp;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.amqp.core.AcknowledgeMode;
import org.springframework.amqp.core.MessageListenerContainer;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;

import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Warns, once the listener containers exist, of each that acknowledges messages on
 * delivery ({@link AcknowledgeMode#NONE}): the broker has forgotten such a message before
 * its listener runs, so one that meets another attempt in progress or a store failure
 * cannot be requeued and is lost. Not refused, since a container whose listeners call no
 * {@code @Idempotent} work may use that mode on purpose, and the acknowledge mode of an
 * endpoint ({@code @RabbitListener(ackMode = ...)}) is only known on its container.
 */
final class AcknowledgeOnDeliveryWarning implements ApplicationListener<ContextRefreshedEvent> {

	private static final Log logger = LogFactory.getLog(AcknowledgeOnDeliveryWarning.class);

	private final ObjectProvider<RabbitListenerEndpointRegistry> registry;

	AcknowledgeOnDeliveryWarning(ObjectProvider<RabbitListenerEndpointRegistry> registry) {
		this.registry = registry;
	}

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		this.registry.ifAvailable((registry) -> {
			for (MessageListenerContainer container : registry.getListenerContainers()) {
				if (container instanceof AbstractMessageListenerContainer listenerContainer
						&& listenerContainer.getAcknowledgeMode() == AcknowledgeMode.NONE) {
					logger.warn("RabbitMQ listener container '" + listenerContainer.getListenerId()
							+ "' acknowledges messages on delivery (acknowledge mode NONE): a message whose"
							+ " @Idempotent work meets another attempt in progress or an unavailable store"
							+ " cannot be requeued and is lost; use AUTO or MANUAL");
				}
			}
		});
	}

}
