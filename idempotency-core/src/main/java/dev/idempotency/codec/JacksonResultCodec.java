package dev.idempotency.codec;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.type.TypeFactory;

import org.springframework.core.ResolvableType;
import org.springframework.util.Assert;

/**
 * {@link ResultCodec} that writes results as JSON with the application's Jackson
 * {@link JsonMapper} and reads them back as the declared type only. Polymorphic (default)
 * typing is never enabled, so stored data cannot choose the class it becomes.
 */
public class JacksonResultCodec implements ResultCodec {

	private static final byte[] EMPTY = {};

	private final JsonMapper mapper;

	/**
	 * Create a codec with a default {@link JsonMapper}.
	 */
	public JacksonResultCodec() {
		this(JsonMapper.builder().build());
	}

	/**
	 * Create a codec with the given mapper.
	 * @param mapper the mapper, typically the application's
	 */
	public JacksonResultCodec(JsonMapper mapper) {
		Assert.notNull(mapper, "'mapper' must not be null");
		this.mapper = mapper;
	}

	@Override
	public TypedCodec forType(ResolvableType type) {
		Class<?> raw = type.resolve();
		if (raw == void.class || raw == Void.class) {
			return VoidCodec.INSTANCE;
		}
		if (raw == null || raw == Object.class) {
			throw new IllegalArgumentException("declared return type " + type
					+ " cannot be replayed safely: declare a concrete type (the stored JSON is never allowed to name "
					+ "its own class)");
		}
		JavaType javaType = javaType(type, this.mapper.getTypeFactory());
		return new JsonCodec(this.mapper.writerFor(javaType), this.mapper.readerFor(javaType));
	}

	private static JavaType javaType(ResolvableType type, TypeFactory factory) {
		Class<?> raw = type.resolve();
		if (raw == null) {
			throw new IllegalArgumentException("type " + type + " has an unresolvable part: declare a concrete type");
		}
		if (type.isArray()) {
			return factory.constructArrayType(javaType(type.getComponentType(), factory));
		}
		if (!type.hasGenerics()) {
			return factory.constructType(raw);
		}
		ResolvableType[] generics = type.getGenerics();
		JavaType[] parameters = new JavaType[generics.length];
		for (int i = 0; i < generics.length; i++) {
			parameters[i] = javaType(generics[i], factory);
		}
		return factory.constructParametricType(raw, parameters);
	}

	private record JsonCodec(ObjectWriter writer, ObjectReader reader) implements TypedCodec {

		@Override
		public byte[] encode(@Nullable Object value) {
			return this.writer.writeValueAsBytes(value);
		}

		@Override
		public @Nullable Object decode(byte[] bytes) {
			return this.reader.readValue(bytes);
		}

	}

	private enum VoidCodec implements TypedCodec {

		INSTANCE;

		@Override
		public byte[] encode(@Nullable Object value) {
			return EMPTY;
		}

		@Override
		public @Nullable Object decode(byte[] bytes) {
			return null;
		}

	}

}
