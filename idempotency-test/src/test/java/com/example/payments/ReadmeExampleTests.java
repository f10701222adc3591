package com.example.payments;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example of docs/testing.md ("Testing your idempotent code") is
 * {@link PaymentsTests}, so that it compiles and passes.
 */
class ReadmeExampleTests {

	@Test
	void testingPageShowsPaymentsTestsAsItIs() throws IOException {
		String readme = Files.readString(Path.of("..", "docs", "testing.md"));
		int end = readme.indexOf("```", readme.indexOf("class PaymentsTests {"));
		int start = readme.lastIndexOf("```java\n", end) + "```java\n".length();
		String source = Files.readString(Path.of("src/test/java/com/example/payments/PaymentsTests.java"));
		String expected = source.substring(source.indexOf('\n', source.indexOf("package ")) + 1).stripLeading();
		assertThat(readme.substring(start, end)).isEqualTo(expected.replace("\t", "    "));
	}

}
