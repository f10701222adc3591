package dev.idempotency.codec;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.idempotency.codec.ResultCodec.TypedCodec;

import org.springframework.core.ResolvableType;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class JacksonResultCodecTests {

	private final JacksonResultCodec codec = new JacksonResultCodec();

	private TypedCodec codecFor(String methodName) {
		return codecFor(methodName, Returns.class);
	}

	private TypedCodec codecFor(String methodName, Class<?> target) {
		Method method = ReflectionUtils.findMethod(target, methodName);
		return this.codec.forType(ResolvableType.forMethodReturnType(method, target));
	}

	private Object roundTrip(String methodName, Object value) {
		TypedCodec typed = codecFor(methodName);
		return typed.decode(typed.encode(value));
	}

	@Test
	void roundTripsRecordsCollectionsAndOptionals() {
		Receipt receipt = new Receipt("r-1", 1250, List.of("a", "b"));
		assertThat(roundTrip("receipt", receipt)).isEqualTo(receipt);
		assertThat(roundTrip("receipts", List.of(receipt)))
			.asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
			.singleElement()
			.isInstanceOf(Receipt.class);
		Map<String, List<Integer>> map = Map.of("x", List.of(1, 2));
		assertThat(roundTrip("map", map)).isEqualTo(map);
		assertThat(roundTrip("optional", Optional.of(receipt))).isEqualTo(Optional.of(receipt));
		assertThat(roundTrip("optional", Optional.empty())).isEqualTo(Optional.empty());
		assertThat(roundTrip("array", new Receipt[] { receipt })).isEqualTo(new Receipt[] { receipt });
	}

	@Test
	void roundTripsPrimitivesStringsEnumsAndTime() {
		assertThat(roundTrip("primitiveInt", 42)).isEqualTo(42);
		assertThat(roundTrip("primitiveLong", 1L << 40)).isEqualTo(1L << 40);
		assertThat(roundTrip("primitiveBoolean", true)).isEqualTo(true);
		assertThat(roundTrip("string", "hé \"quoted\"")).isEqualTo("hé \"quoted\"");
		assertThat(roundTrip("state", State.DONE)).isEqualTo(State.DONE);
		Instant instant = Instant.parse("2026-11-22T06:38:52.123456Z");
		assertThat(roundTrip("instant", instant)).isEqualTo(instant);
		assertThat(roundTrip("date", LocalDate.of(2026, 11, 22))).isEqualTo(LocalDate.of(2026, 11, 22));
		assertThat(roundTrip("duration", Duration.ofMillis(1500))).isEqualTo(Duration.ofMillis(1500));
	}

	@Test
	void nullRoundTrips() {
		assertThat(roundTrip("receipt", null)).isNull();
	}

	@Test
	void genericReturnTypeIsResolvedAgainstTheTargetClass() {
		TypedCodec typed = codecFor("get", ReceiptSource.class);
		Receipt receipt = new Receipt("r", 1, List.of());
		assertThat(typed.decode(typed.encode(receipt))).isInstanceOf(Receipt.class).isEqualTo(receipt);
	}

	@Test
	void voidEncodesToNothingAndDecodesToNull() {
		TypedCodec typed = codecFor("nothing");
		assertThat(typed.encode(null)).isEmpty();
		assertThat(typed.decode(new byte[0])).isNull();
	}

	@Test
	void objectAndUnresolvableTypesAreRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("object")).withMessageContaining("Object");
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("get", Source.class));
	}

	@Test
	void storedJsonNeverChoosesItsClass() {
		TypedCodec typed = codecFor("receipt");
		byte[] planted = "{\"@class\":\"java.lang.ProcessBuilder\",\"id\":\"x\",\"amount\":1,\"tags\":[]}"
			.getBytes(StandardCharsets.UTF_8);
		assertThat(typed.decode(planted)).isEqualTo(new Receipt("x", 1, List.of()));
		TypedCodec list = codecFor("receipts");
		byte[] typeIdArray = "[\"java.lang.ProcessBuilder\",{\"command\":[\"touch\",\"/tmp/pwned\"]}]"
			.getBytes(StandardCharsets.UTF_8);
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> list.decode(typeIdArray));
	}

	@Test
	void mismatchingJsonFailsToDecode() {
		TypedCodec typed = codecFor("primitiveInt");
		assertThatExceptionOfType(RuntimeException.class)
			.isThrownBy(() -> typed.decode("\"not a number\"".getBytes(StandardCharsets.UTF_8)));
	}

	@Test
	void unencodableValueFailsToEncode() {
		TypedCodec typed = codecFor("unencodable");
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> typed.encode(new Unencodable()));
	}

	enum State {

		DONE

	}

	record Receipt(String id, long amount, List<String> tags) {
	}

	static final class Unencodable {

		public String getValue() {
			throw new IllegalStateException("cannot be read");
		}

	}

	abstract static class Source<T> {

		abstract T get();

	}

	static class ReceiptSource extends Source<Receipt> {

		@Override
		Receipt get() {
			return null;
		}

	}

	interface Returns {

		Receipt receipt();

		List<Receipt> receipts();

		Map<String, List<Integer>> map();

		Optional<Receipt> optional();

		Receipt[] array();

		int primitiveInt();

		long primitiveLong();

		boolean primitiveBoolean();

		String string();

		State state();

		Instant instant();

		LocalDate date();

		Duration duration();

		void nothing();

		Object object();

		Unencodable unencodable();

	}

}
