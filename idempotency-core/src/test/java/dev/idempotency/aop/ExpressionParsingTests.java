package dev.idempotency.aop;

import org.junit.jupiter.api.Test;

import org.springframework.expression.spel.SpelCompilerMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How key and payload expressions are parsed: compiled to bytecode once they have run a
 * hundred times on the JVM, never in a native image. There a class cannot be defined at
 * run time: GraalVM throws an {@code UnsupportedFeatureError}, an {@code Error} that
 * SpEL's fallback to interpretation does not catch, so the hundred-and-first call of
 * every compilable key ({@code #event.id}) would fail.
 */
class ExpressionParsingTests {

	@Test
	void expressionsAreCompiledOnTheJvm() {
		assertThat(ExpressionParsing.configuration(false).getCompilerMode()).isEqualTo(SpelCompilerMode.MIXED);
	}

	@Test
	void expressionsAreNeverCompiledInANativeImage() {
		assertThat(ExpressionParsing.configuration(true).getCompilerMode()).isEqualTo(SpelCompilerMode.OFF);
	}

}
