package dev.idempotency.aop;

import java.util.LinkedHashSet;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
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

	private static final Log logger = LogFactory.getLog(IdempotentBeansAotProcessor.class);

	@Override
	public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
			ConfigurableListableBeanFactory beanFactory) {
		Set<Class<?>> classes = new LinkedHashSet<>();
		for (String name : beanFactory.getBeanDefinitionNames()) {
			Class<?> userClass = ClassUtils.getUserClass(RegisteredBean.of(beanFactory, name).getBeanClass());
			try {
				if (IdempotentTypes.mayHaveOperations(userClass)) {
					classes.add(userClass);
				}
			}
			catch (LinkageError | IllegalStateException ex) {
				skipped(userClass, ex);
			}
		}
		if (classes.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> {
			ReflectionHints hints = generationContext.getRuntimeHints().reflection();
			IdempotentMethodHints methods = new IdempotentMethodHints();
			for (Class<?> type : classes) {
				try {
					methods.registerClass(hints, type);
				}
				catch (LinkageError | IllegalStateException ex) {
					skipped(type, ex);
				}
			}
		};
	}

	// A class whose methods name a type missing from the build's class path (an optional
	// dependency; Spring's ReflectionUtils reports it as an IllegalStateException): the
	// build goes on, and says which hints the application has to add
	private static void skipped(Class<?> type, Throwable ex) {
		logger.warn("Could not derive the native-image hints of the @Idempotent methods of " + type.getName() + " ("
				+ ex + "): register its results and arguments with @RegisterReflectionForBinding");
	}

}
