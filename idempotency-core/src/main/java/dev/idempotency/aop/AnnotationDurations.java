package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Reads the duration attributes of {@code @Idempotent}, such as {@code lockTimeout}: its
 * placeholders resolved, in any of Spring's duration styles.
 */
final class AnnotationDurations {

	private final @Nullable StringValueResolver valueResolver;

	/**
	 * Create a reader of durations.
	 * @param valueResolver resolver of {@code ${...}} placeholders in annotation
	 * attributes, or {@code null}
	 */
	AnnotationDurations(@Nullable StringValueResolver valueResolver) {
		this.valueResolver = valueResolver;
	}

	/**
	 * Read a duration attribute.
	 * @param attribute the attribute's name, for messages
	 * @param value the attribute as written
	 * @param method the annotated method, for messages
	 * @return the duration, or {@code null} when the attribute is empty or resolves to
	 * nothing
	 * @throws IllegalStateException if the attribute is not a duration
	 */
	@Nullable Duration parse(String attribute, String value, Method method) {
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
