package dev.idempotency.codec;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.idempotency.codec.ResultCodec.TypedCodec;

import org.springframework.core.ResolvableType;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;

class BoundedEncodingTests {

	private static final Receipt RECEIPT = new Receipt("r-1", 1250, "Annual plan, invoice INV-0417");

	private final JacksonResultCodec codec = new JacksonResultCodec();

	@Test
	void resultWithinTheLimitIsEncodedAsWithoutOne() {
		TypedCodec codec = codecFor("receipt");
		byte[] unbounded = codec.encode(RECEIPT);
		assertThat(codec.encode(RECEIPT, 1024)).isEqualTo(unbounded);
		assertThat(codec.encode(RECEIPT, unbounded.length)).isEqualTo(unbounded);
		assertThat(codec.decode(codec.encode(RECEIPT, 1024))).isEqualTo(RECEIPT);
	}

	@Test
	void resultOneByteOverTheLimitIsTooLarge() {
		TypedCodec codec = codecFor("receipt");
		int length = codec.encode(RECEIPT).length;
		assertThatExceptionOfType(ResultTooLargeException.class).isThrownBy(() -> codec.encode(RECEIPT, length - 1))
			.withMessage("encoded result exceeds " + (length - 1) + " bytes")
			.satisfies((ex) -> assertThat(ex.getMaxBytes()).isEqualTo(length - 1));
	}

	@Test
	void resultLargerThanTheBufferIsEncodedWhole() {
		TypedCodec codec = codecFor("numbers");
		List<Integer> numbers = new CountingList(100_000, new AtomicLong());
		byte[] unbounded = codec.encode(numbers);
		assertThat(unbounded.length).isGreaterThan(500_000);
		assertThat(codec.encode(numbers, unbounded.length)).isEqualTo(unbounded);
	}

	@Test
	void hugeResultIsAbandonedAsSoonAsItPassesTheLimit() {
		AtomicLong pulled = new AtomicLong();
		List<Integer> billion = new CountingList(1_000_000_000, pulled);
		assertThatExceptionOfType(ResultTooLargeException.class)
			.isThrownBy(() -> codecFor("numbers").encode(billion, 10_000))
			.withMessage("encoded result exceeds 10000 bytes");
		assertThat(pulled).hasValueBetween(1_000, 10_000);
	}

	@Test
	void nullIsEncodedWithinTheLimit() {
		assertThat(codecFor("receipt").encode(null, 4)).asString(StandardCharsets.UTF_8).isEqualTo("null");
		assertThatExceptionOfType(ResultTooLargeException.class).isThrownBy(() -> codecFor("receipt").encode(null, 3));
	}

	@Test
	void voidCodecEncodesNothingWithinAnyLimit() {
		assertThat(codecFor("nothing").encode(null, 0)).isEmpty();
	}

	@Test
	void errorFromAGetterPropagatesUnchanged() {
		AssertionError error = new AssertionError("getter broke its contract");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> codecFor("failing").encode(new Failing(error), 1024))
			.isSameAs(error);
	}

	@Test
	void exceptionFromAGetterPropagates() {
		IllegalStateException exception = new IllegalStateException("boom");
		assertThatRuntimeException().isThrownBy(() -> codecFor("failing").encode(new Failing(exception), 1024))
			.isNotInstanceOf(ResultTooLargeException.class)
			.withStackTraceContaining("boom");
	}

	@Test
	void negativeLimitIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("receipt").encode(RECEIPT, -1))
			.withMessage("'maxBytes' must not be negative");
	}

	@Test
	void codecWithoutBoundedEncodingChecksTheLengthOfItsEncoding() {
		TypedCodec fixed = new TypedCodec() {

			@Override
			public byte[] encode(@Nullable Object value) {
				return new byte[10];
			}

			@Override
			public @Nullable Object decode(byte[] bytes) {
				return null;
			}

		};
		assertThat(fixed.encode("x", 10)).hasSize(10);
		assertThatExceptionOfType(ResultTooLargeException.class).isThrownBy(() -> fixed.encode("x", 9))
			.withMessage("encoded result exceeds 9 bytes");
	}

	private TypedCodec codecFor(String methodName) {
		Method method = ReflectionUtils.findMethod(Samples.class, methodName);
		assertThat(method).isNotNull();
		return this.codec.forType(ResolvableType.forMethodReturnType(method));
	}

	record Receipt(String id, long amountCents, String description) {
	}

	/**
	 * A list of consecutive numbers computed as they are read, counting the reads.
	 */
	static final class CountingList extends AbstractList<Integer> {

		private final int size;

		private final AtomicLong pulled;

		CountingList(int size, AtomicLong pulled) {
			this.size = size;
			this.pulled = pulled;
		}

		@Override
		public Integer get(int index) {
			this.pulled.incrementAndGet();
			return index;
		}

		@Override
		public int size() {
			return this.size;
		}

	}

	static final class Failing {

		private final Throwable failure;

		Failing(Throwable failure) {
			this.failure = failure;
		}

		public String getValue() {
			if (this.failure instanceof Error error) {
				throw error;
			}
			throw (RuntimeException) this.failure;
		}

	}

	interface Samples {

		Receipt receipt();

		List<Integer> numbers();

		Failing failing();

		void nothing();

	}

}
