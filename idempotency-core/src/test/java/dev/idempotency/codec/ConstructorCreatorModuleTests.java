package dev.idempotency.codec;

import java.nio.charset.StandardCharsets;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.codec.ConstructorCreatorModule.SpreadConstructorInstantiator;
import dev.idempotency.codec.ResultCodec.TypedCodec;

import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class ConstructorCreatorModuleTests {

	private static final ThreadLocal<Boolean> spread = new ThreadLocal<>();

	private final JacksonResultCodec codec = new JacksonResultCodec();

	@Test
	void recordIsBuiltThroughTheSpreadConstructor() {
		Object decoded = decode(Traced.class, "{\"id\":\"t-1\",\"amount\":7,\"tags\":[\"a\",\"b\"]}");
		assertThat(spread.get()).isTrue();
		assertThat(decoded).isEqualTo(new Traced("t-1", 7, List.of("a", "b")));
	}

	@Test
	void missingComponentDecodesAsJacksonDecodesItWithoutTheModule() {
		String json = "{\"id\":\"t-1\",\"amount\":3}";
		Traced plain = JsonMapper.builder().build().readValue(json, Traced.class);
		assertThat(decode(Traced.class, json)).isEqualTo(plain).isEqualTo(new Traced("t-1", 3, null));
	}

	@Test
	void constructorFailureIsReportedAsJacksonReportsItWithItsCause() {
		String json = "{\"amount\":-1}";
		DatabindException plain = decodeFailure(() -> JsonMapper.builder().build().readValue(json, Positive.class));
		DatabindException spreadFailure = decodeFailure(() -> decode(Positive.class, json));
		assertThat(spreadFailure).hasSameClassAs(plain).hasRootCauseInstanceOf(IllegalArgumentException.class);
		assertThat(spreadFailure.getCause()).hasMessage("amount must not be negative");
		assertThat(spreadFailure.getOriginalMessage()).isEqualTo(plain.getOriginalMessage());
	}

	@Test
	void customDeserializerIsLeftAlone() {
		assertThat(decode(Custom.class, "\"ab\"")).isEqualTo(new Custom("ab", "built by its deserializer"));
	}

	@Test
	void staticFactoryCreatorStillDecodes() {
		assertThat(decode(Money.class, "{\"cents\":42}")).isEqualTo(Money.of(42));
	}

	private Object decode(Class<?> type, String json) {
		spread.remove();
		TypedCodec typed = this.codec.forType(ResolvableType.forClass(type));
		return typed.decode(json.getBytes(StandardCharsets.UTF_8));
	}

	private static DatabindException decodeFailure(Runnable decode) {
		return assertThatExceptionOfType(DatabindException.class).isThrownBy(decode::run).actual();
	}

	record Traced(String id, int amount, List<String> tags) {

		Traced {
			spread.set(StackWalker.getInstance()
				.walk((frames) -> frames
					.anyMatch((frame) -> frame.getClassName().equals(SpreadConstructorInstantiator.class.getName()))));
		}

	}

	record Positive(long amount) {

		Positive {
			if (amount < 0) {
				throw new IllegalArgumentException("amount must not be negative");
			}
		}

	}

	@JsonDeserialize(using = CustomDeserializer.class)
	record Custom(String value, String origin) {

	}

	static class CustomDeserializer extends ValueDeserializer<Custom> {

		@Override
		public Custom deserialize(JsonParser parser, DeserializationContext context) {
			return new Custom(parser.getString(), "built by its deserializer");
		}

	}

	static final class Money {

		private final long cents;

		private Money(long cents) {
			this.cents = cents;
		}

		@JsonCreator
		static Money of(@JsonProperty("cents") long cents) {
			return new Money(cents);
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof Money money && money.cents == this.cents;
		}

		@Override
		public int hashCode() {
			return Long.hashCode(this.cents);
		}

	}

}
