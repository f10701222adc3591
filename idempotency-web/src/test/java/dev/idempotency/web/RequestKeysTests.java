package dev.idempotency.web;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.IdempotencyKeyException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RequestKeysTests {

	private final RequestKeys unscoped = new RequestKeys("Idempotency-Key", KeyScope.NONE);

	private final RequestKeys scoped = new RequestKeys("Idempotency-Key", KeyScope.PRINCIPAL);

	@ParameterizedTest
	@CsvSource(delimiter = '|', quoteCharacter = '\'',
			value = { "abc|abc", "\"abc\"|abc", "'  \"abc\"  '|abc", "\"a\\\"b\"|a\"b", "\"a\\\\b\"|a\\b",
					"\"a b\"|a b", "a\"b|a\"b",
					"\"8e03978e-40d5-43e8-bc93-6894a57f9324\"|8e03978e-40d5-43e8-bc93-6894a57f9324", "'  abc  '|abc" })
	void sfStringQuotesAndEscapesAreRemovedAndBareValuesKept(String header, String key) {
		assertThat(this.unscoped.key("op", List.of(header), null)).isEqualTo(key);
	}

	@ParameterizedTest
	@ValueSource(
			strings = { "\"abc", "\"abc\"x", "\"a\"b\"", "\"a\\b\"", "\"abc\\\"", "\"caf\u00e9\"", "\"tab\there\"" })
	void quotedValueThatIsNotAnSfStringIsRejected(String header) {
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.unscoped.key("payments", List.of(header), null))
			.withMessageContaining("operation 'payments'")
			.withMessageContaining("not an RFC 8941 string");
	}

	@ParameterizedTest
	@ValueSource(strings = { "\"abc\";p=1", "\"abc\"; p=1;q", "\"abc\";p=\"x;, y\";*q=?1;r=:YWJj:;s=-1.5;t=tok/en" })
	void parametersOfAnSfStringAreIgnored(String header) {
		assertThat(this.unscoped.key("op", List.of(header), null)).isEqualTo("abc");
	}

	@ParameterizedTest
	@ValueSource(strings = { "\"abc\";", "\"abc\";P=1", "\"abc\";p=", "\"abc\";p=1 junk", "\"abc\";p=\"x",
			"\"abc\",\"def\"" })
	void sfStringWithParametersThatAreNotValidIsRejected(String header) {
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.unscoped.key("payments", List.of(header), null))
			.withMessageContaining("not an RFC 8941 string");
	}

	@ParameterizedTest
	@ValueSource(strings = { "hello world", "a, b", "a,b", "a\tb", "cl\u00e9", "a\u0001b", "a\u007fb", "a\nb" })
	void bareValueWithWhitespaceACommaOrACharacterThatIsNotPrintableAsciiIsRejected(String header) {
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.unscoped.key("payments", List.of(header), null))
			.withMessageContaining("is not a valid key");
	}

	@Test
	void keyIsAtMostTheLongestLengthAfterItsQuotesAreRemoved() {
		RequestKeys keys = new RequestKeys("Idempotency-Key", KeyScope.NONE, 4);
		assertThat(keys.key("op", List.of("abcd"), null)).isEqualTo("abcd");
		assertThat(keys.key("op", List.of("\"a\\\"cd\";p=12345"), null)).isEqualTo("a\"cd");
		for (String header : List.of("abcde", "\"abcde\"")) {
			assertThatExceptionOfType(IdempotencyKeyException.class)
				.isThrownBy(() -> keys.key("payments", List.of(header), null))
				.withMessageContaining("has a key of 5 characters in its Idempotency-Key header, longer than the 4");
		}
		assertThat(this.unscoped.maxKeyLength()).isEqualTo(255);
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> new RequestKeys("Idempotency-Key", KeyScope.NONE, 0));
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "   ", "\"\"", "\"  \"" })
	void blankKeyIsRejected(String header) {
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.scoped.key("payments", List.of(header), "alice"))
			.withMessage("The request to operation 'payments' has a blank Idempotency-Key header; "
					+ "the handler was not called");
	}

	@Test
	void missingKeyIsRejected() {
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.scoped.key("payments", List.of(), null))
			.withMessage(
					"The request to operation 'payments' has no Idempotency-Key header; the handler was not called");
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.scoped.key("payments", null, null));
	}

	@Test
	void repeatedKeyHeaderIsRejected() {
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.scoped.key("payments", List.of("a", "b"), null))
			.withMessageContaining("has 2 Idempotency-Key headers, not one");
	}

	@Test
	void principalScopePrefixesTheLengthAndNameOfThePrincipal() {
		assertThat(this.scoped.key("op", List.of("k-1"), "alice")).isEqualTo("5:alice:k-1");
		assertThat(this.scoped.key("op", List.of("\"k-1\""), "alice")).isEqualTo("5:alice:k-1");
		assertThat(this.scoped.key("op", List.of("k-1"), null)).isEqualTo("-:k-1");
	}

	@Test
	void noPrincipalAndKeyPairMeetsAnother() {
		List<String> keys = List.of(this.scoped.key("op", List.of("x:k"), "alice"),
				this.scoped.key("op", List.of("k"), "alice:x"), this.scoped.key("op", List.of("5:alice:k"), null),
				this.scoped.key("op", List.of("k"), "alice"), this.scoped.key("op", List.of(":alice:k"), "5"),
				this.scoped.key("op", List.of("k"), ""), this.scoped.key("op", List.of("-:k"), null),
				this.scoped.key("op", List.of("k"), null), this.scoped.key("op", List.of("k"), "-"));
		assertThat(keys).doesNotHaveDuplicates();
	}

	@Test
	void noScopeKeepsTheKeyWhateverThePrincipal() {
		assertThat(this.unscoped.key("op", List.of("k-1"), "alice")).isEqualTo("k-1");
		assertThat(this.unscoped.key("op", List.of("k-1"), null)).isEqualTo("k-1");
	}

	@Test
	void messagesNameTheConfiguredHeader() {
		RequestKeys custom = new RequestKeys("X-Request-Id", KeyScope.PRINCIPAL);
		assertThat(custom.header()).isEqualTo("X-Request-Id");
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> custom.key("payments", List.of(), null))
			.withMessageContaining("has no X-Request-Id header");
	}

}
