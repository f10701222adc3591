package dev.idempotency.aop;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What key and payload expressions reflect on whatever the application: the root object
 * ({@code #root.args}, {@code #root.methodName}), and the common types of key values,
 * whose {@code toString()} is looked up. The hints of each {@code @Idempotent} method
 * come from {@link IdempotentBeansAotProcessor}. Registered through
 * {@code META-INF/spring/aot.factories}.
 */
class IdempotentRuntimeHints implements RuntimeHintsRegistrar {

	private static final List<Class<?>> KEY_VALUE_TYPES = List.of(Long.class, Integer.class, Short.class, Byte.class,
			Character.class, Boolean.class, Double.class, Float.class, UUID.class, BigDecimal.class, BigInteger.class);

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection().registerType(KeyRoot.class, MemberCategory.INVOKE_PUBLIC_METHODS);
		// Whether a key's string is stable is judged by asking its class for toString():
		// a registered type can be asked. A key of a long parameter or of a record's
		// number is a boxed value, which no parameter's binding registers
		for (Class<?> type : KEY_VALUE_TYPES) {
			hints.reflection().registerType(type);
		}
	}

}
