package dev.idempotency.codec;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonRawValue;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
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
		assertThat(canonicalJson(List.of(2.0E23, 0.1))).isEqualTo("[2E+23,0.1]");
	}

	@Test
	void numbersOfEqualValueHaveEqualFingerprints() {
		List<Object> ones = List.of(1, 1L, (short) 1, 1.0, 1.0f, BigInteger.ONE, new BigDecimal("1.00"),
				new BigDecimal("1E0"), new BigDecimal("0.1E1"), tree("1"), tree("1.0"), tree("1.00"), tree("1e0"),
				tree("10e-1"));
		for (Object one : ones) {
			assertThat(canonicalJson(one)).as("%s (%s)", one, one.getClass().getSimpleName()).isEqualTo("1");
		}
		assertThat(this.fingerprinter.fingerprint(Map.of("amount", 12.5)))
			.isEqualTo(this.fingerprinter.fingerprint(Map.of("amount", new BigDecimal("12.50"))))
			.isEqualTo(this.fingerprinter.fingerprint(tree("{\"amount\":1.25e1}")));
	}

	@Test
	void floatingPointNumbersCountAsTheirShortestDecimal() {
		assertThat(canonicalJson(0.1)).isEqualTo("0.1");
		assertThat(this.fingerprinter.fingerprint(0.1)).isEqualTo(this.fingerprinter.fingerprint(new BigDecimal("0.1")))
			.isEqualTo(this.fingerprinter.fingerprint(0.1f))
			.isEqualTo(this.fingerprinter.fingerprint(tree("0.100")));
		assertThat(this.fingerprinter.fingerprint(0.1))
			.isNotEqualTo(this.fingerprinter.fingerprint(new BigDecimal(0.1)));
	}

	@Test
	void largeAndSmallNumbersAreWrittenByValue() {
		assertThat(canonicalJson(
				List.of(1250, 1.25e3, -0.0, Long.MIN_VALUE, 1e20, 1e21, new BigDecimal("1e21"), BigInteger.TEN.pow(21),
						new BigDecimal("0.000001"), new BigDecimal("1e-7"), new BigDecimal("-12.3400"))))
			.isEqualTo("[1250,1250,0,-9223372036854775808,100000000000000000000,1E+21,1E+21,1E+21,0.000001,1E-7,"
					+ "-12.34]");
	}

	@Test
	void hugeExponentIsNotWrittenOut() {
		assertThat(canonicalJson(new BigDecimal("1e1000000"))).isEqualTo("1E+1000000");
		assertThat(canonicalJson(new BigDecimal("1e-1000000"))).isEqualTo("1E-1000000");
	}

	@Test
	void notANumberAndInfinitiesAreWrittenAsJacksonWritesThem() {
		assertThat(canonicalJson(List.of(Double.NaN, Double.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY)))
			.isEqualTo("[\"NaN\",\"Infinity\",\"-Infinity\"]");
	}

	@Test
	void differentNumbersHaveDifferentFingerprints() {
		assertThat(this.fingerprinter.fingerprint(1)).isNotEqualTo(this.fingerprinter.fingerprint(2));
		assertThat(this.fingerprinter.fingerprint(1)).isNotEqualTo(this.fingerprinter.fingerprint(1.5));
		assertThat(this.fingerprinter.fingerprint(1)).isNotEqualTo(this.fingerprinter.fingerprint("1"));
		assertThat(this.fingerprinter.fingerprint(0.1)).isNotEqualTo(this.fingerprinter.fingerprint(0.2));
		assertThat(this.fingerprinter.fingerprint(new BigDecimal("1e21")))
			.isNotEqualTo(this.fingerprinter.fingerprint(new BigDecimal("1e22")));
	}

	@Test
	void stringsAreComparedInNormalizationFormC() {
		String decomposed = "caf\u0065\u0301";
		String composed = "caf\u00e9";
		assertThat(this.fingerprinter.fingerprint(decomposed)).isEqualTo(this.fingerprinter.fingerprint(composed));
		assertThat(canonicalJson(decomposed)).isEqualTo("\"" + composed + "\"");
		assertThat(this.fingerprinter.fingerprint(Map.of(decomposed, 1)))
			.isEqualTo(this.fingerprinter.fingerprint(Map.of(composed, 1)));
		assertThat(this.fingerprinter.fingerprint("a")).isNotEqualTo(this.fingerprinter.fingerprint("A"));
		assertThat(this.fingerprinter.fingerprint(Map.of("a", 1)))
			.isNotEqualTo(this.fingerprinter.fingerprint(Map.of("A", 1)));
	}

	@Test
	void propertiesAreSortedByTheirNormalizedNames() {
		Map<String, Integer> first = new LinkedHashMap<>();
		first.put("e\u0301", 1);
		first.put("f", 2);
		first.put("d", 3);
		assertThat(canonicalJson(first)).isEqualTo("{\"d\":3,\"f\":2,\"\u00e9\":1}");
	}

	@Test
	void requestReserialisedByItsClientHasTheSameFingerprint() {
		JsonMapper mapper = JsonMapper.builder().build();
		String sent = "{\"payer\":\"Ren\u00e9e\",\"amount\":12.5,\"items\":[{\"sku\":\"A-1\",\"qty\":2}]}";
		String resent = "{ \"items\": [ { \"qty\": 2.0, \"sku\": \"A-1\" } ],\n \"amount\": 1.250E1, "
				+ "\"payer\": \"Rene\u0301e\" }";
		assertThat(this.fingerprinter.fingerprint(mapper.readValue(resent, Map.class)))
			.isEqualTo(this.fingerprinter.fingerprint(mapper.readValue(sent, Map.class)))
			.isEqualTo(this.fingerprinter.fingerprint(mapper.readTree(resent)))
			.isEqualTo(this.fingerprinter.fingerprint(mapper.readValue(sent, Order.class)));
		assertThat(canonicalJson(mapper.readTree(resent)))
			.isEqualTo("{\"amount\":12.5,\"items\":[{\"qty\":2,\"sku\":\"A-1\"}],\"payer\":\"Ren\u00e9e\"}");
	}

	@Test
	void declaredPropertyOrderDoesNotCount() {
		assertThat(canonicalJson(new Reordered())).isEqualTo("{\"from\":\"a\",\"to\":\"b\"}");
	}

	@Test
	void rawJsonPropertyIsMadeCanonicalToo() {
		assertThat(canonicalJson(new WithRawJson("{\"b\": 1.0, \"a\": \"e\u0301\"}")))
			.isEqualTo("{\"json\":{\"a\":\"\u00e9\",\"b\":1}}");
	}

	@Test
	void bytesAreWrittenInBase64() {
		assertThat(canonicalJson(Map.of("data", new byte[] { 1, 2, 3 }))).isEqualTo("{\"data\":\"AQID\"}");
	}

	@Test
	void equalSetsIteratingInDifferentOrdersHaveEqualFingerprints() {
		// As Jackson builds the same request on another JVM (a set of enums, or of
		// records
		// holding enums, hashes by identity), or after another history of the set
		Set<String> small = new HashSet<>();
		Set<String> large = new HashSet<>(4096);
		for (String tag : List.of("a", "q", "Aa", "BB", "zz", "xy", "hello", "world")) {
			small.add(tag);
			large.add(tag);
		}
		assertThat(small).isEqualTo(large);
		assertThat(List.copyOf(small)).isNotEqualTo(List.copyOf(large));
		assertThat(this.fingerprinter.fingerprint(new Tagged(small)))
			.isEqualTo(this.fingerprinter.fingerprint(new Tagged(large)));
	}

	@Test
	void elementsOfEverySetAreSortedByTheirCanonicalJson() {
		String sorted = "{\"tags\":[\"a\",\"b\",\"c\"]}";
		assertThat(canonicalJson(new Tagged(new LinkedHashSet<>(List.of("c", "a", "b"))))).isEqualTo(sorted);
		assertThat(canonicalJson(new Tagged(new TreeSet<>(List.of("c", "a", "b")).descendingSet()))).isEqualTo(sorted);
		assertThat(canonicalJson(EnumSet.of(Color.RED, Color.GREEN))).isEqualTo("[\"GREEN\",\"RED\"]");
		assertThat(canonicalJson(new LinkedHashSet<>(List.of(Map.of("b", 10), Map.of("b", 9), 2))))
			.isEqualTo("[2,{\"b\":10},{\"b\":9}]");
		assertThat(canonicalJson(Set.of(Set.of(2, 1), Set.of(0)))).isEqualTo("[[0],[1,2]]");
	}

	@Test
	void listsKeepTheirOrder() {
		assertThat(this.fingerprinter.fingerprint(List.of("a", "b")))
			.isNotEqualTo(this.fingerprinter.fingerprint(List.of("b", "a")));
	}

	@Test
	void bytesAndTheStringOfTheirBase64AreEqualAsOnTheWire() {
		assertThat(this.fingerprinter.fingerprint(new Attachment(new byte[] { 1, 2 })))
			.isEqualTo(this.fingerprinter.fingerprint(new Attachment("AQI=")));
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

	private static JsonNode tree(String json) {
		return JsonMapper.builder().build().readTree(json);
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

	record Order(String payer, BigDecimal amount, List<Item> items) {
	}

	record Item(String sku, int qty) {
	}

	@JsonPropertyOrder({ "to", "from" })
	static class Reordered {

		public String getFrom() {
			return "a";
		}

		public String getTo() {
			return "b";
		}

	}

	record WithRawJson(@JsonRawValue String json) {
	}

	record Tagged(Set<String> tags) {
	}

	record Attachment(Object content) {
	}

	enum Color {

		RED, GREEN

	}

	static class Exploding {

		public String getValue() {
			throw new IllegalStateException("boom");
		}

	}

}
