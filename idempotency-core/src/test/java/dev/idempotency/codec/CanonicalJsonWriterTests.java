package dev.idempotency.codec;

import java.text.Normalizer;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

class CanonicalJsonWriterTests {

	@Test
	void everyStringOfCharactersBelowTheFirstCombiningMarkIsAlreadyInNfc() {
		for (char first = 0; first < '\u0300'; first++) {
			for (char second = 0; second < '\u0300'; second++) {
				String text = new String(new char[] { first, second });
				if (!Normalizer.isNormalized(text, Normalizer.Form.NFC)) {
					fail("U+%04X U+%04X is not in NFC", (int) first, (int) second);
				}
			}
		}
	}

	@Test
	void stringAlreadyInNfcIsReturnedAsItIs() {
		String ascii = "payer: Ren\u00e9e <x@example.com>";
		assertThat(CanonicalJsonWriter.nfc(ascii)).isSameAs(ascii);
	}

	@Test
	void decomposedStringIsComposed() {
		assertThat(CanonicalJsonWriter.nfc("Rene\u0301e")).isEqualTo("Ren\u00e9e");
		assertThat(CanonicalJsonWriter.nfc("\u1100\u1161")).isEqualTo("\uac00");
		assertThat(CanonicalJsonWriter.nfc("\u212b")).isEqualTo("\u00c5");
	}

}
