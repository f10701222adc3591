package dev.idempotency.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Writes what the error messages about {@code @Idempotent} methods share: the method, as
 * its declaring class and parameter types name it, and the message of an annotation
 * attribute that is not valid.
 */
final class IdempotentMessages {

	private IdempotentMessages() {
	}

	// The reason carries the cause's message instead of chaining it, so that the root
	// cause of a failed startup names the method and the expression.
	static IllegalStateException invalid(String attribute, String text, Method method, @Nullable String reason) {
		return new IllegalStateException(
				"Invalid @Idempotent(" + attribute + " = \"" + text + "\") on " + describe(method) + ": " + reason);
	}

	static String describe(Method method) {
		StringBuilder builder = new StringBuilder(method.getDeclaringClass().getName()).append('.')
			.append(method.getName())
			.append('(');
		Class<?>[] types = method.getParameterTypes();
		for (int i = 0; i < types.length; i++) {
			builder.append((i > 0) ? ", " : "").append(types[i].getSimpleName());
		}
		return builder.append(')').toString();
	}

}
