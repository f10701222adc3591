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
 * the configurer returns, of the factory's class. That class is the bean's type, which an
 * AOT build determines, generating the proxy class a native image could not.
 */
final class RabbitListenerContainerFactoryPostProcessor implements SmartInstantiationAwareBeanPostProcessor {

	private final ObjectProvider<IdempotencyRabbitListenerConfigurer> configurer;

	RabbitListenerContainerFactoryPostProcessor(ObjectProvider<IdempotencyRabbitListenerConfigurer> configurer) {
		this.configurer = configurer;
	}

	// Every configurer makes the same proxy class, so the bean's own is not needed (nor
	// created, in an AOT build that only determines types)
	@Override
	public Class<?> determineBeanType(Class<?> beanClass, String beanName) {
		return BaseRabbitListenerContainerFactory.class.isAssignableFrom(beanClass)
				? IdempotencyRabbitListenerConfigurer.proxyType(beanClass) : beanClass;
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
