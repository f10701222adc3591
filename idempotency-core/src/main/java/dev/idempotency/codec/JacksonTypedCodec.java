package dev.idempotency.codec;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;

import org.springframework.util.Assert;

/**
 * {@link ResultCodec.TypedCodec} bound to one Jackson type: the reader and writer are
 * built once, so a call neither resolves types nor looks up (de)serializers by type.
 */
final class JacksonTypedCodec implements ResultCodec.TypedCodec {

	private final JavaType type;

	private final ObjectReader reader;

	private final ObjectWriter writer;

	JacksonTypedCodec(JavaType type, ObjectReader reader, ObjectWriter writer) {
		this.type = type;
		this.reader = reader;
		this.writer = writer;
	}

	@Override
	public byte[] encode(@Nullable Object value) {
		return this.writer.writeValueAsBytes(value);
	}

	@Override
	public @Nullable Object decode(byte[] bytes) {
		Assert.notNull(bytes, "'bytes' must not be null");
		return this.reader.readValue(bytes);
	}

	@Override
	public String toString() {
		return "JacksonTypedCodec[" + this.type.toCanonical() + "]";
	}

}
