package dev.idempotency.autoconfigure.amqp;

import dev.idempotency.amqp.IdempotencyRabbitListenerConfigurer;

import org.springframework.amqp.rabbit.config.BaseRabbitListenerContainerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.SmartInstantiationAwareBeanPostProcessor;

/**
 * Applies the {@link IdempotencyRabbitListenerConfigurer} to each listener container
 * factory once it is initialized, that is, after the code that defined it (Spring Boot's
 * configurer included) has set its advice chain, and before any container is created from
 * it: the bean becomes {@linkplain IdempotencyRabbitListenerConfigurer#applyTo the proxy}
 * the configurer returns, of the factory's class.
 */
final class RabbitListenerContainerFactoryPostProcessor implements SmartInstantiationAwareBeanPostProcessor {

	private final ObjectProvider<IdempotencyRabbitListenerConfigurer> configurer;

	RabbitListenerContainerFactoryPostProcessor(ObjectProvider<IdempotencyRabbitListenerConfigurer> configurer) {
		this.configurer = configurer;
	}

	// Asked ahead of time, where the class generated now is kept for a native image,
	// which cannot generate the proxy's class at run time. No bean is made to answer
	@Override
	@SuppressWarnings("unchecked")
	public Class<?> determineBeanType(Class<?> beanClass, String beanName) {
		if (BaseRabbitListenerContainerFactory.class.isAssignableFrom(beanClass)) {
			return IdempotencyRabbitListenerConfigurer
				.proxyClass((Class<? extends BaseRabbitListenerContainerFactory<?>>) beanClass);
		}
		return beanClass;
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
