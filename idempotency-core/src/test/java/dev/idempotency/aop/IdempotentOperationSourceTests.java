package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.Idempotent;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.OperationSettings;

import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class IdempotentOperationSourceTests {

	static Stream<Arguments> durations() {
		return Stream.of(Arguments.of("500ms", Duration.ofMillis(500)), Arguments.of("30s", Duration.ofSeconds(30)),
				Arguments.of("5m", Duration.ofMinutes(5)), Arguments.of("2h", Duration.ofHours(2)),
				Arguments.of("1d", Duration.ofDays(1)), Arguments.of("1500", Duration.ofMillis(1500)),
				Arguments.of("+30s", Duration.ofSeconds(30)), Arguments.of("30S", Duration.ofSeconds(30)),
				Arguments.of(" 30s ", Duration.ofSeconds(30)), Arguments.of("PT5M", Duration.ofMinutes(5)),
				Arguments.of("pt5m", Duration.ofMinutes(5)), Arguments.of(" PT5M ", Duration.ofMinutes(5)),
				Arguments.of("P1DT2H", Duration.ofHours(26)), Arguments.of("1h30m", Duration.ofMinutes(90)),
				Arguments.of("2500us", Duration.ofNanos(2_500_000)));
	}

	@ParameterizedTest
	@MethodSource("durations")
	void parsesDurationAttributesInSpringsStyles(String text, Duration expected) {
		assertThat(settings(text).retention()).isEqualTo(expected);
	}

	@ParameterizedTest
	@ValueSource(strings = { "5x", "1.5s", "30 s", "s", "thirty seconds", "P", "PT5X", "99999999999999999999s",
			"9999999999999999d" })
	void rejectsDurationsThatNoStyleReadsNamingAttributeMethodAndFormats(String text) {
		assertThatIllegalStateException().isThrownBy(() -> settings(text))
			.withMessage("Invalid @Idempotent(retention = \"${duration}\") on " + Retained.class.getName()
					+ ".run(String): '" + text + "' is not a duration (use 500ms, 30s, 5m, 2h, 1d or PT5M)");
	}

	@Test
	void negativeDurationIsReadAndThenRejectedBySettingsValidation() {
		assertThatIllegalStateException().isThrownBy(() -> settings("-5s"))
			.withMessageContaining("Retained.run")
			.withMessageEndingWith("'retention' must be positive, was PT-5S");
	}

	private static OperationSettings settings(String duration) {
		IdempotentOperationSource source = new IdempotentOperationSource(IdempotencyDefaults.STANDARD,
				new JacksonResultCodec(), (value) -> value.replace("${duration}", duration));
		Method method = ReflectionUtils.findMethod(Retained.class, "run", String.class);
		IdempotentOperation operation = source.getOperation(method, Retained.class);
		assertThat(operation).isNotNull();
		return operation.operation().settings();
	}

	static class Retained {

		@Idempotent(key = "#id", retention = "${duration}")
		public String run(String id) {
			return id;
		}

	}

}
