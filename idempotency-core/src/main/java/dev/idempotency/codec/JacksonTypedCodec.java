package dev.idempotency.codec;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;

import org.springframework.util.Assert;

/**
 * {@link ResultCodec.TypedCodec} bound to one Jackson type: the reader, the writer and
 * the check for subclass values are built once, so a call neither resolves types nor
 * looks up (de)serializers by type.
 * <p>
 * A value is encoded first and checked for subclass values after, so that the check walks
 * only results small enough to be stored.
 */
final class JacksonTypedCodec implements ResultCodec.TypedCodec {

	private final JavaType type;

	private final ObjectReader reader;

	private final ObjectWriter writer;

	private final @Nullable SubclassCheck subclassCheck;

	JacksonTypedCodec(JavaType type, ObjectReader reader, ObjectWriter writer, @Nullable SubclassCheck subclassCheck) {
		this.type = type;
		this.reader = reader;
		this.writer = writer;
		this.subclassCheck = subclassCheck;
	}

	@Override
	public byte[] encode(@Nullable Object value) {
		byte[] bytes = this.writer.writeValueAsBytes(value);
		checkClasses(value);
		return bytes;
	}

	@Override
	public byte[] encode(@Nullable Object value, long maxBytes) {
		Assert.isTrue(maxBytes >= 0, "'maxBytes' must not be negative");
		LimitedOutputStream output = new LimitedOutputStream(maxBytes);
		try {
			this.writer.writeValue(output, value);
		}
		catch (RuntimeException ex) {
			throw tooLargeOr(output, ex);
		}
		// A serializer that caught the exception must not pass off a truncated encoding
		ResultTooLargeException overflow = output.overflow();
		if (overflow != null) {
			throw overflow;
		}
		checkClasses(value);
		return output.toByteArray();
	}

	@Override
	public @Nullable Object decode(byte[] bytes) {
		Assert.notNull(bytes, "'bytes' must not be null");
		return this.reader.readValue(bytes);
	}

	private void checkClasses(@Nullable Object value) {
		if (this.subclassCheck != null && value != null) {
			this.subclassCheck.check(value);
		}
	}

	// Jackson wraps what the stream throws in its own exception, with the path to the
	// value being written; the limit is what the caller needs to know
	private static RuntimeException tooLargeOr(LimitedOutputStream output, RuntimeException ex) {
		ResultTooLargeException overflow = output.overflow();
		return (overflow != null) ? overflow : ex;
	}

	@Override
	public String toString() {
		return "JacksonTypedCodec[" + this.type.toCanonical() + "]";
	}

}
