package dev.idempotency.amqp;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;

/**
 * The members of Spring AMQP that the starter reads by reflection
 * ({@link SpringAmqpInternals}, {@link ListenerAdapterInternals}): without them a native
 * image would answer as if the application had configured nothing, and replace its advice
 * chain. Registered through {@code META-INF/spring/aot.factories}.
 */
class SpringAmqpRuntimeHints implements RuntimeHintsRegistrar {

	// Spring AMQP is optional for the starter: the registrar is listed whether or not it
	// is
	// there
	private static final String CONTAINER = "org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		if (!ClassUtils.isPresent(CONTAINER, classLoader)) {
			return;
		}
		ReflectionHints reflection = hints.reflection();
		for (Member member : SpringAmqpInternals.reflected()) {
			if (member instanceof Method method) {
				reflection.registerMethod(method, ExecutableMode.INVOKE);
			}
			else if (member instanceof Field field) {
				reflection.registerField(field);
			}
		}
	}

}
