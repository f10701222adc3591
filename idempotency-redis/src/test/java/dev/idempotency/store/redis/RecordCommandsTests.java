package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RecordCommandsTests {

	@Test
	void numbersAreTheirDecimalDigits() {
		for (long value : new long[] { 0, 7, 9, 10, 99, 100, 1234567890123L, Long.MAX_VALUE, -1, Long.MIN_VALUE }) {
			assertThat(new String(RecordCommands.number(value), StandardCharsets.US_ASCII))
				.isEqualTo(Long.toString(value));
		}
	}

}
