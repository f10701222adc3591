package dev.idempotency.aop;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses the duration attributes of {@code @Idempotent}: ISO-8601 ({@code PT5M}) or a
 * number with a unit ({@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d}); a
 * bare number is milliseconds, as in Spring Boot.
 */
final class Durations {

	private static final Pattern SIMPLE = Pattern.compile("^([+]?\\d+)\\s*(ns|us|ms|s|m|h|d)?$");

	private Durations() {
	}

	static Duration parse(String text) {
		String value = text.trim();
		Matcher matcher = SIMPLE.matcher(value.toLowerCase(Locale.ROOT));
		if (matcher.matches()) {
			long amount = Long.parseLong(matcher.group(1));
			String unit = (matcher.group(2) != null) ? matcher.group(2) : "ms";
			return switch (unit) {
				case "ns" -> Duration.ofNanos(amount);
				case "us" -> Duration.ofNanos(amount * 1000);
				case "ms" -> Duration.ofMillis(amount);
				case "s" -> Duration.ofSeconds(amount);
				case "m" -> Duration.ofMinutes(amount);
				case "h" -> Duration.ofHours(amount);
				default -> Duration.ofDays(amount);
			};
		}
		try {
			return Duration.parse(value);
		}
		catch (DateTimeParseException ex) {
			throw new IllegalArgumentException("'" + text + "' is not a duration (use 500ms, 30s, 5m, 2h, 1d or PT5M)",
					ex);
		}
	}

}
