package dev.idempotency.aop;

import java.util.LinkedHashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.util.ClassUtils;

/**
 * Finds, ahead of time, every bean with {@code @Idempotent} methods (services, request
 * handlers, Kafka and RabbitMQ listeners alike) and registers the reflection its methods
 * need in a native image: see {@link IdempotentMethodHints}. Registered through
 * {@code META-INF/spring/aot.factories}.
 */
class IdempotentBeansAotProcessor implements BeanFactoryInitializationAotProcessor {

	@Override
	public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
			ConfigurableListableBeanFactory beanFactory) {
		Set<Class<?>> classes = new LinkedHashSet<>();
		for (String name : beanFactory.getBeanDefinitionNames()) {
			Class<?> beanClass = RegisteredBean.of(beanFactory, name).getBeanClass();
			Class<?> userClass = ClassUtils.getUserClass(beanClass);
			if (IdempotentTypes.mayHaveOperations(userClass)) {
				classes.add(userClass);
			}
		}
		if (classes.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> {
			ReflectionHints hints = generationContext.getRuntimeHints().reflection();
			IdempotentMethodHints methods = new IdempotentMethodHints();
			classes.forEach((type) -> methods.registerClass(hints, type));
		};
	}

}
