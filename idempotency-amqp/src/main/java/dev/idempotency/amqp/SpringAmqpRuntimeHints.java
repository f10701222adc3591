package dev.idempotency.amqp;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The members of Spring AMQP that the starter reads by reflection
 * ({@link SpringAmqpInternals}, {@link ListenerAdapterInternals}): without them a native
 * image would answer as if the application had configured nothing, and replace its advice
 * chain. Registered through {@code META-INF/spring/aot.factories}.
 */
class SpringAmqpRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
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
