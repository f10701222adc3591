package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.idempotency.Idempotent;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.OperationOverrides;
import dev.idempotency.engine.OperationSettings;

import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Resolves the settings of an {@code @Idempotent} operation: the durations of its
 * annotation, placeholders resolved, between the global settings and the operation's
 * configured overrides ({@link IdempotencyDefaults#resolve}).
 */
final class OperationSettingsResolver {

	private final IdempotencyDefaults defaults;

	private final @Nullable StringValueResolver valueResolver;

	/**
	 * Create a resolver.
	 * @param defaults global settings and per-operation overrides
	 * @param valueResolver resolver of {@code ${...}} placeholders in annotation
	 * attributes, or {@code null}
	 */
	OperationSettingsResolver(IdempotencyDefaults defaults, @Nullable StringValueResolver valueResolver) {
		this.defaults = defaults;
		this.valueResolver = valueResolver;
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
		OperationOverrides annotated = new OperationOverrides(duration("lockTimeout", annotation.lockTimeout(), method),
				duration("retention", annotation.retention(), method), annotation.onInProgress(),
				duration("waitTimeout", annotation.waitTimeout(), method));
		try {
			return this.defaults.resolve(name, annotated);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("Invalid settings of @Idempotent operation '" + name + "' on "
					+ IdempotentMessages.describe(method) + ": " + ex.getMessage());
		}
	}

	private @Nullable Duration duration(String attribute, String value, Method method) {
		if (!StringUtils.hasText(value)) {
			return null;
		}
		String resolved = (this.valueResolver != null) ? this.valueResolver.resolveStringValue(value) : value;
		if (!StringUtils.hasText(resolved)) {
			return null;
		}
		// Spring's duration styles: simple (500ms, 30s, 5m, 2h, 1d; a bare number is
		// milliseconds, as in Spring Boot), composite (1h30m) and ISO-8601 (PT5M).
		try {
			return DurationFormatterUtils.detectAndParse(resolved.trim(), DurationFormat.Unit.MILLIS);
		}
		catch (IllegalArgumentException ex) {
			throw IdempotentMessages.invalid(attribute, value, method,
					"'" + resolved + "' is not a duration (use 500ms, 30s, 5m, 2h, 1d or PT5M)");
		}
	}

}
