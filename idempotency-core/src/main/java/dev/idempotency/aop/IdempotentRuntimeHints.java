package dev.idempotency.aop;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What key and payload expressions reflect on whatever the application: the root object
 * ({@code #root.args}, {@code #root.methodName}). The hints of each {@code @Idempotent}
 * method come from {@link IdempotentBeansAotProcessor}. Registered through
 * {@code META-INF/spring/aot.factories}.
 */
class IdempotentRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection().registerType(KeyRoot.class, MemberCategory.INVOKE_PUBLIC_METHODS);
	}

}
