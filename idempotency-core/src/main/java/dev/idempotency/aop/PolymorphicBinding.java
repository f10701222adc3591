package dev.idempotency.aop;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.TypeHint;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * Binding hints for types and, unlike Spring's {@link BindingReflectionHintsRegistrar}
 * alone, for the subtypes Jackson decodes a polymorphic type as: those a type with
 * {@code @JsonTypeInfo} names in {@code @JsonSubTypes} or permits as a sealed type,
 * wherever the walk meets it (the result itself, or a property of it). The codec only
 * accepts an abstract result with type information, so such a result's values are always
 * of these subtypes; without their hints a native image writes them as {@code {}}.
 */
final class PolymorphicBinding {

	private final BindingReflectionHintsRegistrar binding = new BindingReflectionHintsRegistrar();

	/**
	 * Register binding for types, the subtypes of polymorphic types among the types they
	 * reach included.
	 * @param hints the hints to add to
	 * @param loader the class loader to resolve the reached types with
	 * @param types the types
	 */
	void register(ReflectionHints hints, @Nullable ClassLoader loader, Class<?>... types) {
		Set<Class<?>> seen = new LinkedHashSet<>(Arrays.asList(types));
		Class<?>[] pending = types;
		while (pending.length > 0) {
			this.binding.registerReflectionHints(hints, pending);
			// The registrar does not say which types it reached: a walk of its own
			// into hints of their own tells
			ReflectionHints reached = new ReflectionHints();
			this.binding.registerReflectionHints(reached, pending);
			pending = reached.typeHints()
				.map((hint) -> resolve(hint, loader))
				.filter(Objects::nonNull)
				.flatMap((type) -> subtypes(type).stream())
				.filter(seen::add)
				.toArray(Class<?>[]::new);
		}
	}

	private static @Nullable Class<?> resolve(TypeHint hint, @Nullable ClassLoader loader) {
		try {
			return ClassUtils.forName(hint.getType().getName(), loader);
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
	}

	static Set<Class<?>> subtypes(Class<?> type) {
		if (!AnnotatedElementUtils.hasAnnotation(type, JsonTypeInfo.class)) {
			return Set.of();
		}
		Set<Class<?>> subtypes = new LinkedHashSet<>();
		JsonSubTypes named = AnnotatedElementUtils.findMergedAnnotation(type, JsonSubTypes.class);
		if (named != null) {
			Arrays.stream(named.value()).map(JsonSubTypes.Type::value).forEach(subtypes::add);
		}
		if (type.isSealed()) {
			// Jackson 3 takes the permitted subclasses of a sealed type as its subtypes
			subtypes.addAll(Arrays.asList(type.getPermittedSubclasses()));
		}
		subtypes.remove(type);
		return subtypes;
	}

}
