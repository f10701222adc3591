package dev.idempotency.codec;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class JacksonPayloadFingerprinterTests {

	private final JacksonPayloadFingerprinter fingerprinter = new JacksonPayloadFingerprinter();

	@Test
	void fingerprintIsTheSha256OfTheCanonicalJson() {
		Charge charge = new Charge("alice", 1250, "EUR");
		assertThat(canonicalJson(charge)).isEqualTo("{\"amount\":1250,\"currency\":\"EUR\",\"payer\":\"alice\"}");
		assertThat(hex(charge)).isEqualTo("88dc116c7b6fd7ae990e2322474a0f01e7feb33ed63d3ddf7a6044af2b101720");
	}

	@Test
	void nullIsFingerprintedAsNull() {
		assertThat(canonicalJson(null)).isEqualTo("null");
		assertThat(hex(null)).isEqualTo("74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b");
	}

	@Test
	void fingerprintIs32Bytes() {
		assertThat(this.fingerprinter.fingerprint("x")).hasSize(32);
	}

	@Test
	void mapsFilledInDifferentOrdersHaveEqualFingerprints() {
		Map<String, Object> first = new LinkedHashMap<>();
		first.put("b", 2);
		first.put("a", Map.of("y", 1, "x", List.of(1, 2)));
		Map<String, Object> second = new LinkedHashMap<>();
		second.put("a", new TreeMap<>(Map.of("x", List.of(1, 2), "y", 1)));
		second.put("b", 2);
		assertThat(canonicalJson(first)).isEqualTo("{\"a\":{\"x\":[1,2],\"y\":1},\"b\":2}");
		assertThat(this.fingerprinter.fingerprint(first)).isEqualTo(this.fingerprinter.fingerprint(second));
	}

	@Test
	void equalRecordsHaveEqualFingerprints() {
		assertThat(this.fingerprinter.fingerprint(new Charge("alice", 1250, "EUR")))
			.isEqualTo(this.fingerprinter.fingerprint(new Charge("alice", 1250, "EUR")));
	}

	@Test
	void differentPayloadsHaveDifferentFingerprints() {
		byte[] fingerprint = this.fingerprinter.fingerprint(new Charge("alice", 1250, "EUR"));
		assertThat(this.fingerprinter.fingerprint(new Charge("alice", 1251, "EUR"))).isNotEqualTo(fingerprint);
		assertThat(this.fingerprinter.fingerprint(new Charge("bob", 1250, "EUR"))).isNotEqualTo(fingerprint);
		assertThat(this.fingerprinter.fingerprint(Map.of("a", 1)))
			.isNotEqualTo(this.fingerprinter.fingerprint(Map.of("b", 1)));
		assertThat(this.fingerprinter.fingerprint(List.of(1, 2)))
			.isNotEqualTo(this.fingerprinter.fingerprint(List.of(2, 1)));
		assertThat(this.fingerprinter.fingerprint(null)).isNotEqualTo(this.fingerprinter.fingerprint(""));
	}

	@Test
	void beanPropertiesAreSortedByName() {
		assertThat(canonicalJson(new Transfer())).isEqualTo("{\"from\":\"a\",\"to\":\"b\",\"value\":3}");
	}

	@Test
	void jsonNodePropertiesAreSortedByName() {
		JsonMapper mapper = JsonMapper.builder().build();
		assertThat(canonicalJson(mapper.readTree("{\"b\":1,\"a\":{\"d\":1,\"c\":2}}")))
			.isEqualTo("{\"a\":{\"c\":2,\"d\":1},\"b\":1}");
	}

	@Test
	void doublesAreWrittenTheSameOnEveryJdk() {
		// Double.toString gives 1.9999999999999998E23 before JDK 19
		assertThat(canonicalJson(List.of(2.0E23, 0.1))).isEqualTo("[2.0E23,0.1]");
	}

	@Test
	void canonicalJsonHasNoWhitespaceEvenWhenTheMapperIndents() {
		JsonMapper indenting = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
		JacksonPayloadFingerprinter fingerprinter = new JacksonPayloadFingerprinter(indenting);
		Charge charge = new Charge("alice", 1250, "EUR");
		assertThat(fingerprinter.fingerprint(charge)).isEqualTo(this.fingerprinter.fingerprint(charge));
	}

	@Test
	void payloadThatCannotBeWrittenThrows() {
		assertThatExceptionOfType(RuntimeException.class)
			.isThrownBy(() -> this.fingerprinter.fingerprint(new Exploding()))
			.withStackTraceContaining("boom");
	}

	private String canonicalJson(Object payload) {
		return new String(this.fingerprinter.canonicalJson(payload), StandardCharsets.UTF_8);
	}

	private String hex(Object payload) {
		return HexFormat.of().formatHex(this.fingerprinter.fingerprint(payload));
	}

	record Charge(String payer, long amount, String currency) {
	}

	static class Transfer {

		public int getValue() {
			return 3;
		}

		public String getTo() {
			return "b";
		}

		public String getFrom() {
			return "a";
		}

	}

	static class Exploding {

		public String getValue() {
			throw new IllegalStateException("boom");
		}

	}

}
