package dev.idempotency.kafka;

import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.util.ClassUtils;

/**
 * Matches the listener methods whose declared result spring-kafka handles asynchronously:
 * a {@link CompletionStage} of any kind, or a Reactor {@code Mono}, recognised by name so
 * that Reactor stays optional.
 */
final class AsyncListenerPointcut extends StaticMethodMatcherPointcut {

	private static final @Nullable Class<?> MONO = ClassUtils.isPresent("reactor.core.publisher.Mono",
			AsyncListenerPointcut.class.getClassLoader())
					? ClassUtils.resolveClassName("reactor.core.publisher.Mono",
							AsyncListenerPointcut.class.getClassLoader())
					: null;

	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		if (!isAsync(method.getReturnType())) {
			return false;
		}
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		return isListener(specific) || (specific != method && isListener(method));
	}

	static boolean isAsync(Class<?> type) {
		return CompletionStage.class.isAssignableFrom(type) || (MONO != null && MONO.isAssignableFrom(type));
	}

	private static boolean isListener(Method method) {
		return AnnotatedElementUtils.hasAnnotation(method, KafkaListener.class)
				|| AnnotatedElementUtils.hasAnnotation(method, KafkaHandler.class);
	}

}
