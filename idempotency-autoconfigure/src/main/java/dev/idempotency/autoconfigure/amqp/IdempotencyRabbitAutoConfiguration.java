package dev.idempotency.autoconfigure.amqp;

import dev.idempotency.amqp.IdempotencyRabbitListenerConfigurer;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.IdempotencyProperties;

import org.springframework.amqp.rabbit.config.BaseRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * Auto-configuration of RabbitMQ listener containers for {@code @Idempotent} listeners:
 * every listener container factory bean (Spring Boot's
 * {@code rabbitListenerContainerFactory}, simple or direct, and the application's own)
 * gets the rules of {@link IdempotencyRabbitListenerConfigurer} around the advice chain
 * it was given (Spring Boot's {@code spring.rabbitmq.listener.*.retry} interceptor, or
 * the application's), with the back-off of
 * {@code idempotency.messaging.in-progress-retry}. Its acknowledge mode and other
 * settings stay as they are, and so does its error handler, but that Spring AMQP's
 * default one no longer sees (and logs at WARN) the messages the rules requeue or reject,
 * which they log in one line each. Each factory bean becomes the
 * {@linkplain IdempotencyRabbitListenerConfigurer#applyTo proxy} that also gives the
 * rules to listeners that return a {@code CompletableFuture} or {@code Mono} and requeues
 * copies of keys in progress to the tail of their queue. An
 * {@link IdempotencyRabbitListenerConfigurer} bean of the application's replaces the one
 * it applies.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@ConditionalOnClass({ BaseRabbitListenerContainerFactory.class, IdempotencyRabbitListenerConfigurer.class })
public final class IdempotencyRabbitAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static IdempotencyRabbitListenerConfigurer idempotencyRabbitListenerConfigurer(IdempotencyProperties properties) {
		return new IdempotencyRabbitListenerConfigurer(properties.getMessaging().getInProgressRetry().toBackOff());
	}

	// Static, and the configurer looked up lazily, since post-processors are created
	// before other beans
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static RabbitListenerContainerFactoryPostProcessor idempotencyRabbitListenerContainerFactoryPostProcessor(
			ObjectProvider<IdempotencyRabbitListenerConfigurer> configurer) {
		return new RabbitListenerContainerFactoryPostProcessor(configurer);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static ListenerContainerErrorHandlers idempotencyRabbitListenerContainerErrorHandlers(
			ObjectProvider<RabbitListenerEndpointRegistry> registry,
			ObjectProvider<IdempotencyRabbitListenerConfigurer> configurer) {
		return new ListenerContainerErrorHandlers(registry, configurer);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static AcknowledgeOnDeliveryWarning idempotencyRabbitAcknowledgeOnDeliveryWarning(
			ObjectProvider<RabbitListenerEndpointRegistry> registry) {
		return new AcknowledgeOnDeliveryWarning(registry);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static AsyncListenerWarning idempotencyRabbitAsyncListenerWarning(
			ObjectProvider<RabbitListenerEndpointRegistry> registry) {
		return new AsyncListenerWarning(registry);
	}

}
