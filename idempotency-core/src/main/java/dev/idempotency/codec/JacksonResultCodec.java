package dev.idempotency.codec;

import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.util.Assert;

/**
 * {@link ResultCodec} that stores results as JSON with a Jackson {@link JsonMapper}, and
 * always decodes them to the declared generic type.
 *
 * <p>
 * Default typing is switched off on the codec's copy of the mapper whatever the
 * application configured, so stored JSON can never choose a class: a {@code "@class"}
 * property or a type-id array is ignored or fails decoding, never instantiated.
 * {@link #forType} resolves the type once and rejects {@code Object}, unresolved type
 * variables, unbounded wildcards, raw generic types, and interfaces and abstract classes
 * that could not be decoded to the class a value had (no {@code @JsonTypeInfo}, and no
 * deserializer of Jackson's or the application's; {@code Serializable} and {@code Number}
 * included), as the whole type, as the element type of a container or as the type of a
 * property of a bean or record the result holds, with an {@link IllegalArgumentException}
 * that names the type and the reason. {@code void} and {@code Void} get a codec that
 * stores nothing and replays {@code null}.
 *
 * <p>
 * A value whose class is a strict subclass of the concrete class declared for it, as the
 * result, inside a returned collection, {@code Iterable}, array, map or {@code Optional},
 * or as the value of a bean's or record's property, would replay as the declared class
 * with the subclass's fields dropped: encoding it throws
 * {@link UnreplayableResultException}. Only the parts of a declared type that can hold
 * such a value are checked, as prepared once by {@link #forType}: nothing for final
 * classes and records whose properties cannot hold one, enums, or classes with type
 * information or a deserializer of their own.
 *
 * <p>
 * {@link ResultCodec.TypedCodec#encode(Object, long)} writes into a buffer that refuses
 * to grow past the limit, so an oversized result is abandoned after at most the limit
 * plus one chunk of Jackson's output buffer, never encoded whole.
 *
 * <p>
 * Records and other types built through a properties-based constructor are decoded
 * exactly as the mapper would decode them, only with their constructor called through a
 * method handle prepared once per type (see {@code ConstructorCreatorModule}).
 *
 * <p>
 * {@code encode} and {@code decode} throw Jackson's {@code JacksonException} (a
 * {@link RuntimeException}) for a value that cannot be written, such as one whose getter
 * throws or that nests itself, and for bytes that do not match the type; an {@link Error}
 * thrown by a getter propagates unchanged. {@code null} round-trips as {@code null}; an
 * empty {@code Optional} round-trips as an empty {@code Optional}.
 */
public class JacksonResultCodec implements ResultCodec {

	private final JsonMapper mapper;

	private final DeclaredTypeResolver typeResolver;

	/**
	 * Create a codec with a default {@link JsonMapper}.
	 */
	public JacksonResultCodec() {
		this(JsonMapper.builder().build());
	}

	/**
	 * Create a codec with the application's mapper, so results are written with its
	 * modules and settings.
	 * @param mapper the mapper to derive the codec's mapper from
	 */
	public JacksonResultCodec(JsonMapper mapper) {
		Assert.notNull(mapper, "'mapper' must not be null");
		JsonMapper.Builder builder = mapper.rebuild()
			.deactivateDefaultTyping()
			.addModule(new ConstructorCreatorModule());
		this.mapper = new PooledBuilder(builder).build();
		this.typeResolver = new DeclaredTypeResolver(this.mapper.getTypeFactory());
	}

	@Override
	public TypedCodec forType(ResolvableType type) {
		Assert.notNull(type, "'type' must not be null");
		if (VoidCodec.isVoid(type.resolve())) {
			return VoidCodec.INSTANCE;
		}
		DecodingIntrospector introspector = new DecodingIntrospector(this.mapper);
		JavaType javaType = this.typeResolver.resolve(type, introspector);
		// Stored bytes count against max-result-size: never pretty-print them
		return new JacksonTypedCodec(javaType, this.mapper.readerFor(javaType),
				this.mapper.writerFor(javaType).without(SerializationFeature.INDENT_OUTPUT),
				SubclassCheck.forType(javaType, introspector));
	}

	/**
	 * The builder of the codec's copy of the mapper, with the same settings and modules
	 * but Jackson's buffers in a {@link StripedRecyclerPool} of its own; the
	 * application's mapper keeps its pool.
	 */
	private static final class PooledBuilder extends JsonMapper.Builder {

		PooledBuilder(JsonMapper.Builder builder) {
			super((JsonMapper.Builder.StateImpl) builder.saveStateApplyModules());
			this._streamFactory = ((JsonFactory) builder.streamFactory()).rebuild()
				.recyclerPool(new StripedRecyclerPool())
				.build();
		}

	}

}
