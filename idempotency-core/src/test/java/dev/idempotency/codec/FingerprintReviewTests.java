package dev.idempotency.codec;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review of issue 8 item 9: payloads that are equal get different fingerprints, or
 * different payloads get the same one.
 */
class FingerprintReviewTests {

	private final JacksonPayloadFingerprinter fingerprinter = new JacksonPayloadFingerprinter();

	@Test
	void equalSetsGetEqualFingerprints() {
		// The same set, as Jackson builds it from the same request on another JVM
		// (a Set of enums or of records holding enums hashes by identity) or after a
		// different history of the set: iteration order differs, equality does not
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
	void bytesAndTheStringOfTheirBase64Differ() {
		assertThat(this.fingerprinter.fingerprint(new Attachment(new byte[] { 1, 2 })))
			.isNotEqualTo(this.fingerprinter.fingerprint(new Attachment("AQI=")));
	}

	record Tagged(Set<String> tags) {
	}

	record Attachment(Object content) {
	}

}
