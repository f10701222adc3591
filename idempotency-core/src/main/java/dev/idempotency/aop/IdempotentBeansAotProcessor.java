package dev.idempotency.aop;

import java.util.LinkedHashSet;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.FactoryBean;
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
			Class<?> beanClass = RegisteredBean.of(beanFactory, name).getBeanClass();
			addIfCandidate(classes, beanClass);
			if (FactoryBean.class.isAssignableFrom(beanClass)) {
				// The auto-proxy creator proxies the object the factory makes, whose
				// methods are the ones intercepted
				Class<?> product = productType(beanFactory, name);
				if (product != null) {
					addIfCandidate(classes, product);
				}
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

	private static void addIfCandidate(Set<Class<?>> classes, Class<?> type) {
		Class<?> userClass = ClassUtils.getUserClass(type);
		try {
			if (IdempotentTypes.mayHaveOperations(userClass)) {
				classes.add(userClass);
			}
		}
		catch (LinkageError | IllegalStateException ex) {
			skipped(userClass, ex);
		}
	}

	// Predicted from the factory's generics or its definition, never by making the
	// factory
	private static @Nullable Class<?> productType(ConfigurableListableBeanFactory beanFactory, String name) {
		try {
			return beanFactory.getType(name, false);
		}
		catch (BeansException | LinkageError ex) {
			logger.debug("Could not predict the object type of FactoryBean '" + name + "'", ex);
			return null;
		}
	}

	// A class whose methods name a type missing from the build's class path (an optional
	// dependency; Spring's ReflectionUtils reports it as an IllegalStateException): the
	// build goes on, and says which hints the application has to add
	private static void skipped(Class<?> type, Throwable ex) {
		logger.warn("Could not derive the native-image hints of the @Idempotent methods of " + type.getName() + " ("
				+ ex + "): register its results and arguments with @RegisterReflectionForBinding");
	}

}
