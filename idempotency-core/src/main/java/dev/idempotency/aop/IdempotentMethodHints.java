package dev.idempotency.aop;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

/**
 * The reflection an {@code @Idempotent} method needs at run time in a native image: the
 * method itself, which the interceptor calls; binding for the value it returns (the type
 * argument of a stage, a {@code Mono} or a {@code ResponseEntity}, element types
 * included, and the subtypes Jackson decodes a polymorphic one as), which the codec
 * writes and reads; binding and public methods for its parameter types, which key and
 * payload expressions navigate and the fingerprinter writes; and the {@code (String)}
 * constructor of each {@code replayFailures} type, which makes the replayed exception.
 * <p>
 * A method whose annotation or return type is invalid gets the hints it can: startup
 * refuses it all the same, with the reason.
 */
final class IdempotentMethodHints {

	// Recognised by name: idempotency-core does not depend on Spring Web
	private static final String[] ENTITY_TYPES = { "org.springframework.http.ResponseEntity",
			"org.springframework.http.HttpEntity" };

	private static final String[] FRAMEWORK_PACKAGES = { "jakarta.", "org.springframework.", "org.apache.kafka.",
			"com.rabbitmq.", "reactor.", "io.netty.", "org.reactivestreams." };

	private final PolymorphicBinding binding = new PolymorphicBinding();

	/**
	 * Register the hints of every idempotent method of a class.
	 * @param hints the hints to add to
	 * @param userClass the class of a bean
	 * @return how many idempotent methods the class has
	 */
	int registerClass(ReflectionHints hints, Class<?> userClass) {
		if (!IdempotentTypes.mayHaveOperations(userClass)) {
			return 0;
		}
		int found = 0;
		for (Method method : IdempotentTypes.candidateMethods(userClass)) {
			AnnotatedMethod annotated = find(method, userClass);
			if (annotated != null) {
				register(hints, annotated);
				found++;
			}
		}
		return found;
	}

	private static @Nullable AnnotatedMethod find(Method method, Class<?> userClass) {
		try {
			return AnnotatedMethod.find(method, userClass);
		}
		catch (IllegalStateException ex) {
			// An annotated method of Object: startup fails on it, naming it
			return null;
		}
	}

	private void register(ReflectionHints hints, AnnotatedMethod annotated) {
		Method method = annotated.method();
		hints.registerMethod(method, ExecutableMode.INVOKE);
		ResolvableType value = valueType(method, annotated.userClass());
		if (value != null) {
			this.binding.register(hints, annotated.userClass().getClassLoader(), resolved(value));
		}
		for (int i = 0; i < method.getParameterCount(); i++) {
			ResolvableType parameter = ResolvableType.forMethodParameter(method, i, annotated.userClass());
			this.binding.register(hints, annotated.userClass().getClassLoader(), applicationTypes(resolved(parameter)));
			Class<?> raw = parameter.toClass();
			if (!raw.isPrimitive() && !raw.isArray() && raw != Object.class) {
				// A key may call any public method of an argument, such as a record's
				// key() or a ConsumerRecord's headers()
				hints.registerType(raw, MemberCategory.INVOKE_PUBLIC_METHODS);
			}
		}
		for (Class<? extends Throwable> failure : annotated.annotation().replayFailures()) {
			Constructor<? extends Throwable> constructor = ClassUtils.getConstructorIfAvailable(failure, String.class);
			if (constructor != null && Modifier.isPublic(constructor.getModifiers())) {
				hints.registerConstructor(constructor, ExecutableMode.INVOKE);
			}
		}
	}

	// Binding walks every getter it finds, recursively: through a request, a record of a
	// broker or an acknowledgment it would register whole frameworks. Their own public
	// methods are registered all the same, and the types of their type arguments (the
	// PaymentEvent of a ConsumerRecord<String, PaymentEvent>) stay.
	private static Class<?>[] applicationTypes(Class<?>[] types) {
		return Arrays.stream(types)
			.filter((type) -> Arrays.stream(FRAMEWORK_PACKAGES).noneMatch(type.getName()::startsWith))
			.toArray(Class<?>[]::new);
	}

	// Classes, not the declared Type: a type variable resolved against the bean's class
	// (a generic handler's T) would be lost on the binding registrar
	private static Class<?>[] resolved(ResolvableType type) {
		Set<Class<?>> classes = new LinkedHashSet<>();
		collect(type, classes);
		return classes.toArray(Class<?>[]::new);
	}

	private static void collect(ResolvableType type, Set<Class<?>> classes) {
		Class<?> raw = type.resolve();
		if (raw != null && classes.add(raw)) {
			if (raw.isArray()) {
				collect(type.getComponentType(), classes);
			}
			for (ResolvableType generic : type.getGenerics()) {
				collect(generic, classes);
			}
		}
	}

	private static @Nullable ResolvableType valueType(Method method, Class<?> userClass) {
		ResolvableType value;
		try {
			value = ResultTypes.resolve(method, userClass).valueType();
		}
		catch (IllegalStateException ex) {
			// An unsupported return type: startup fails on it, naming the method
			return null;
		}
		Class<?> raw = value.resolve();
		for (String entityType : ENTITY_TYPES) {
			if (raw != null && raw.getName().equals(entityType)) {
				return value.getGeneric(0);
			}
		}
		return (raw != null && raw != void.class && raw != Void.class) ? value : null;
	}

}
