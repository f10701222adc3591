package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.stream.BaseStream;

import dev.idempotency.aop.IdempotentOperation.ResultKind;

import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

/**
 * Tells how an {@code @Idempotent} method delivers its value, and the type of that value:
 * the return type itself, the type argument of a {@link CompletionStage} or
 * {@link CompletableFuture}, or that of a Reactor {@code Mono}, recognised by name so
 * that Reactor stays optional. Every other asynchronous or multi-value type is refused,
 * naming the method: a {@code Flux}, any other {@code Publisher} or reactive type that
 * {@link ReactiveAdapterRegistry} knows, a {@code Stream}, a Kotlin {@code Flow}, a plain
 * {@link Future}, or a {@code CompletionStage} of a class of its own (the call returns a
 * {@code CompletableFuture}).
 */
final class ResultTypes {

	private static final String MONO = "reactor.core.publisher.Mono";

	private static final String[] MULTI_VALUE_TYPES = { "org.reactivestreams.Publisher",
			"java.util.concurrent.Flow$Publisher", "kotlinx.coroutines.flow.Flow" };

	private ResultTypes() {
	}

	/**
	 * Resolve how a method delivers its value.
	 * @param method the method
	 * @param userClass the class it is called on
	 * @return the kind and the value type
	 * @throws IllegalStateException if the return type is not supported, naming the
	 * method
	 */
	static Resolved resolve(Method method, Class<?> userClass) {
		ResolvableType type = ResolvableType.forMethodReturnType(method, userClass);
		Class<?> raw = type.toClass();
		if (raw == CompletionStage.class || raw == CompletableFuture.class) {
			return new Resolved(ResultKind.STAGE, valueType(method, type.as(CompletionStage.class), raw));
		}
		if (CompletionStage.class.isAssignableFrom(raw)) {
			throw unsupported(method, raw.getName() + " is a CompletionStage of its own class: declare "
					+ "CompletionStage or CompletableFuture, which is what an idempotent call returns");
		}
		if (Future.class.isAssignableFrom(raw)) {
			throw unsupported(method, "a Future (" + raw.getName() + ") cannot be followed without blocking a "
					+ "thread: return a CompletionStage or CompletableFuture, or the value itself");
		}
		if (BaseStream.class.isAssignableFrom(raw)) {
			throw unsupported(method, multiValue(raw));
		}
		if (raw.getName().equals(MONO)) {
			return new Resolved(ResultKind.MONO, valueType(method, type, raw));
		}
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(raw);
		if (adapter != null) {
			if (adapter.isMultiValue()) {
				throw unsupported(method, multiValue(raw));
			}
			throw unsupported(method, "of the reactive types, only Mono is supported (found " + raw.getName()
					+ "): return a Mono or a CompletionStage");
		}
		for (String multiValueType : MULTI_VALUE_TYPES) {
			if (isAssignable(multiValueType, raw)) {
				throw unsupported(method, multiValue(raw));
			}
		}
		return new Resolved(ResultKind.VALUE, type);
	}

	private static ResolvableType valueType(Method method, ResolvableType type, Class<?> raw) {
		ResolvableType valueType = type.getGeneric();
		if (valueType.resolve() == null) {
			throw unsupported(method, "declare the type of the value, such as " + raw.getSimpleName()
					+ "<Receipt>: a raw " + raw.getSimpleName() + " cannot be replayed as any type");
		}
		return valueType;
	}

	private static String multiValue(Class<?> type) {
		return type.getName() + " yields many values, which cannot be stored and replayed as one result: return "
				+ "a Mono or CompletionStage of a List, or a List";
	}

	private static boolean isAssignable(String className, Class<?> type) {
		ClassLoader loader = type.getClassLoader();
		if (!ClassUtils.isPresent(className, loader)) {
			return false;
		}
		return ClassUtils.resolveClassName(className, loader).isAssignableFrom(type);
	}

	static IllegalStateException unsupported(Method method, String reason) {
		return new IllegalStateException(
				"Invalid return type of @Idempotent method " + IdempotentMessages.describe(method) + ": " + reason);
	}

	/**
	 * How a method delivers its value.
	 *
	 * @param kind synchronously, by a stage, or by a {@code Mono}
	 * @param valueType the type of the value, whose codec stores and replays it
	 */
	record Resolved(ResultKind kind, ResolvableType valueType) {
	}

}
