package dev.idempotency.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import dev.idempotency.Idempotent;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.OperationOverrides;
import dev.idempotency.engine.OperationSettings;

import org.springframework.util.StringValueResolver;

/**
 * Resolves the settings of an {@code @Idempotent} operation: the durations of its
 * annotation ({@link AnnotationDurations}), between the global settings and the
 * operation's configured overrides ({@link IdempotencyDefaults#resolve}).
 */
final class OperationSettingsResolver {

	private final IdempotencyDefaults defaults;

	private final AnnotationDurations durations;

	/**
	 * Create a resolver.
	 * @param defaults global settings and per-operation overrides
	 * @param valueResolver resolver of {@code ${...}} placeholders in annotation
	 * attributes, or {@code null}
	 */
	OperationSettingsResolver(IdempotencyDefaults defaults, @Nullable StringValueResolver valueResolver) {
		this.defaults = defaults;
		this.durations = new AnnotationDurations(valueResolver);
	}

	/**
	 * Resolve the settings of an operation.
	 * @param name the operation's name
	 * @param annotation its annotation
	 * @param method its method, for messages
	 * @return the settings
	 * @throws IllegalStateException if an attribute is not a duration or the settings are
	 * invalid
	 */
	OperationSettings resolve(String name, Idempotent annotation, Method method) {
		OperationOverrides annotated = new OperationOverrides(
				this.durations.parse("lockTimeout", annotation.lockTimeout(), method),
				this.durations.parse("retention", annotation.retention(), method), annotation.onInProgress(),
				this.durations.parse("waitTimeout", annotation.waitTimeout(), method));
		try {
			return this.defaults.resolve(name, annotated);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("Invalid settings of @Idempotent operation '" + name + "' on "
					+ IdempotentMessages.describe(method) + ": " + ex.getMessage());
		}
	}

}
