package dev.idempotency.autoconfigure.amqp;

import dev.idempotency.amqp.IdempotencyRabbitListenerConfigurer;

import org.springframework.amqp.rabbit.config.BaseRabbitListenerContainerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Applies the {@link IdempotencyRabbitListenerConfigurer} to each listener container
 * factory once it is initialized, that is, after the code that defined it (Spring Boot's
 * configurer included) has set its advice chain, and before any container is created from
 * it: the bean becomes {@linkplain IdempotencyRabbitListenerConfigurer#applyTo the proxy}
 * the configurer returns, of the factory's class.
 */
final class RabbitListenerContainerFactoryPostProcessor implements BeanPostProcessor {

	private final ObjectProvider<IdempotencyRabbitListenerConfigurer> configurer;

	RabbitListenerContainerFactoryPostProcessor(ObjectProvider<IdempotencyRabbitListenerConfigurer> configurer) {
		this.configurer = configurer;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof BaseRabbitListenerContainerFactory<?> factory) {
			IdempotencyRabbitListenerConfigurer configurer = this.configurer.getIfAvailable();
			if (configurer != null) {
				return configurer.applyTo(factory);
			}
		}
		return bean;
	}

}
