package dev.idempotency.codec;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JacksonPayloadFingerprinterTests {

	private final JacksonPayloadFingerprinter fingerprinter = new JacksonPayloadFingerprinter();

	@Test
	void isTheSha256OfTheCanonicalJson() throws Exception {
		byte[] expected = MessageDigest.getInstance("SHA-256")
			.digest("{\"amount\":10,\"id\":\"p-1\"}".getBytes(StandardCharsets.UTF_8));
		assertThat(this.fingerprinter.fingerprint(new Payment("p-1", 10))).isEqualTo(expected).hasSize(32);
		assertThat(HexFormat.of().formatHex(this.fingerprinter.fingerprint(Map.of("b", 2, "a", 1)))).isEqualTo(HexFormat
			.of()
			.formatHex(
					MessageDigest.getInstance("SHA-256").digest("{\"a\":1,\"b\":2}".getBytes(StandardCharsets.UTF_8))));
	}

	@Test
	void equalPayloadsHaveEqualFingerprintsWhateverTheirOrder() {
		Map<String, Object> one = new LinkedHashMap<>();
		one.put("x", 1);
		one.put("y", Map.of("q", 1, "p", 2));
		Map<String, Object> other = new LinkedHashMap<>();
		other.put("y", Map.of("p", 2, "q", 1));
		other.put("x", 1);
		assertThat(this.fingerprinter.fingerprint(one)).isEqualTo(this.fingerprinter.fingerprint(other));
		assertThat(this.fingerprinter.fingerprint(new Payment("p", 1)))
			.isEqualTo(this.fingerprinter.fingerprint(new Payment("p", 1)));
	}

	@Test
	void differentPayloadsHaveDifferentFingerprints() {
		assertThat(this.fingerprinter.fingerprint(new Payment("p", 1)))
			.isNotEqualTo(this.fingerprinter.fingerprint(new Payment("p", 2)));
		assertThat(this.fingerprinter.fingerprint(null)).isNotEqualTo(this.fingerprinter.fingerprint(""));
	}

	record Payment(String id, long amount) {
	}

}
