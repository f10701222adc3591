package dev.idempotency.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import dev.idempotency.Idempotent;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The methods a class can override from {@link Object}: {@code toString}, {@code equals},
 * {@code hashCode}, {@code clone} and {@code finalize}. None of them is ever idempotent.
 * Logging, collections, frameworks and proxies call them for their own purposes, and a
 * replayed {@code equals} or {@code toString} would be a wrong answer; proxies also
 * answer {@code equals} and {@code hashCode} themselves, so an annotation there would be
 * silently ignored. Hence a type-level annotation skips them and a method-level one fails
 * startup.
 */
final class ObjectMethods {

	private static final String NAMES = "toString, equals, hashCode, clone, finalize";

	private ObjectMethods() {
	}

	/**
	 * Return whether a method is, or overrides, an overridable method of {@link Object}.
	 * @param method the method
	 * @return whether it is one of {@code toString()}, {@code equals(Object)},
	 * {@code hashCode()}, {@code clone()} or {@code finalize()}
	 */
	static boolean isObjectMethod(Method method) {
		return switch (method.getName()) {
			case "toString", "hashCode", "clone", "finalize" -> method.getParameterCount() == 0;
			case "equals" -> method.getParameterCount() == 1 && method.getParameterTypes()[0] == Object.class;
			default -> false;
		};
	}

	/**
	 * Fail if a class, or a type it inherits from, annotates one of these methods.
	 * Checked per class, because a proxy never asks about {@code equals} and
	 * {@code hashCode} method by method.
	 * @param type the user class of a bean
	 * @throws IllegalStateException naming the method
	 */
	static void checkNotAnnotated(Class<?> type) {
		check(ReflectionUtils.findMethod(type, "toString"));
		check(ReflectionUtils.findMethod(type, "equals", Object.class));
		check(ReflectionUtils.findMethod(type, "hashCode"));
		check(ReflectionUtils.findMethod(type, "clone"));
		check(ReflectionUtils.findMethod(type, "finalize"));
	}

	private static void check(@Nullable Method method) {
		if (method != null && method.getDeclaringClass() != Object.class
				&& AnnotatedElementUtils.hasAnnotation(method, Idempotent.class)) {
			throw annotated(method);
		}
	}

	static IllegalStateException annotated(Method method) {
		return new IllegalStateException("Invalid @Idempotent on " + IdempotentMessages.describe(method)
				+ ": the methods of Object (" + NAMES + ") are never idempotent; annotate a method of your own");
	}

}
