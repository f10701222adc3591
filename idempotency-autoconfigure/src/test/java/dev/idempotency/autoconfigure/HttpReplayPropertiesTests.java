package dev.idempotency.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for binding the {@code idempotency.http} properties that say what a replayed
 * response carries.
 */
@ExtendWith(OutputCaptureExtension.class)
class HttpReplayPropertiesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues("idempotency.store=memory")
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class));

	@Test
	void replayedHeadersAreTheDefaultAllowList(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(IdempotencyProperties.class).getHttp().getReplayedHeaders())
				.containsExactly("Location", "Content-Location", "Content-Language", "ETag", "Last-Modified", "Link");
			assertThat(output).doesNotContain("idempotency.http.replayed-headers");
		});
	}

	@Test
	void bindsReplayedHeadersFromACommaSeparatedList() {
		this.contextRunner.withPropertyValues("idempotency.http.replayed-headers=location, X-Request-Id")
			.run((context) -> assertThat(context.getBean(IdempotencyProperties.class).getHttp().getReplayedHeaders())
				.containsExactly("location", "X-Request-Id"));
	}

	@Test
	void serverErrorsAreReleasedByDefaultAndReplayedWhenEnabled() {
		this.contextRunner
			.run((context) -> assertThat(context.getBean(IdempotencyProperties.class).getHttp().isReplayServerErrors())
				.isFalse());
		this.contextRunner.withPropertyValues("idempotency.http.replay-server-errors=true")
			.run((context) -> assertThat(context.getBean(IdempotencyProperties.class).getHttp().isReplayServerErrors())
				.isTrue());
	}

	@Test
	void failsStartupOnReplayServerErrorsThatIsNotABoolean() {
		this.contextRunner.withPropertyValues("idempotency.http.replay-server-errors=sometimes")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("idempotency.http.replay-server-errors"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "Set-Cookie", "set-cookie", "SET-COOKIE2" })
	void listedCookieHeaderIsIgnoredWithAWarningNamingTheProperty(String cookie, CapturedOutput output) {
		this.contextRunner.withPropertyValues("idempotency.http.replayed-headers=Location," + cookie).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(ReplayedHeaders.of(context.getBean(IdempotencyProperties.class).getHttp()))
				.isEqualTo(List.of("Location"));
			assertThat(output).contains("WARN")
				.contains("idempotency.http.replayed-headers lists [" + cookie + "]")
				.contains("never stored");
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "X Custom", "X-Custom:", "Location,", "X-Caf\u00e9" })
	void failsStartupOnReplayedHeaderThatIsNotAHeaderName(String headers) {
		this.contextRunner.withPropertyValues("idempotency.http.replayed-headers=" + headers)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(BindValidationException.class)
				.hasMessageContaining("idempotency.http.replayed-headers must hold header names"));
	}

}
