package dev.idempotency.codec;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class LimitedOutputStreamTests {

	@Test
	void singleWriteIsKeptAsOneExactArray() {
		LimitedOutputStream output = new LimitedOutputStream(100);
		output.write(new byte[] { 9, 1, 2, 3, 9 }, 1, 3);
		byte[] bytes = output.toByteArray();
		assertThat(bytes).containsExactly(1, 2, 3);
		assertThat(output.toByteArray()).isSameAs(bytes);
	}

	@Test
	void writesAreConcatenatedAcrossGrowth() {
		LimitedOutputStream output = new LimitedOutputStream(10_000);
		byte[] chunk = new byte[300];
		Arrays.fill(chunk, (byte) 7);
		output.write(chunk, 0, chunk.length);
		output.write(5);
		output.write(chunk, 0, chunk.length);
		byte[] bytes = output.toByteArray();
		assertThat(bytes).hasSize(601);
		assertThat(bytes[299]).isEqualTo((byte) 7);
		assertThat(bytes[300]).isEqualTo((byte) 5);
		assertThat(bytes[600]).isEqualTo((byte) 7);
	}

	@Test
	void writeUpToTheLimitIsAccepted() {
		LimitedOutputStream output = new LimitedOutputStream(4);
		output.write(new byte[3], 0, 3);
		output.write(1);
		assertThat(output.toByteArray()).hasSize(4);
		assertThat(output.overflow()).isNull();
	}

	@Test
	void writePastTheLimitThrowsOnceAndLaterWritesAreDropped() {
		LimitedOutputStream output = new LimitedOutputStream(4);
		output.write(new byte[3], 0, 3);
		ResultTooLargeException overflow = assertThatExceptionOfType(ResultTooLargeException.class)
			.isThrownBy(() -> output.write(new byte[2], 0, 2))
			.withMessage("encoded result exceeds 4 bytes")
			.actual();
		assertThat(output.overflow()).isSameAs(overflow);
		output.write(new byte[100], 0, 100);
		output.write(1);
		assertThat(output.toByteArray()).hasSize(3);
	}

	@Test
	void singleBytePastTheLimitThrows() {
		LimitedOutputStream output = new LimitedOutputStream(0);
		assertThatExceptionOfType(ResultTooLargeException.class).isThrownBy(() -> output.write(1));
	}

	@Test
	void limitBeyondTheLargestArrayStillAcceptsWrites() {
		LimitedOutputStream output = new LimitedOutputStream(Long.MAX_VALUE);
		output.write(new byte[] { 1 }, 0, 1);
		output.write(2);
		assertThat(output.toByteArray()).containsExactly(1, 2);
	}

}
