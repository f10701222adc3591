package dev.idempotency.codec;

import java.lang.reflect.Modifier;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.AbstractDeserializer;
import tools.jackson.databind.deser.bean.BeanDeserializerBase;
import tools.jackson.databind.json.JsonMapper;

/**
 * Asks the codec's mapper how it would decode a type: whether values of the type carry
 * polymorphic type information, and which deserializer builds them. Used while a codec is
 * prepared, once per declared type, never per call.
 * <p>
 * A failure to find a deserializer answers as if the type were fine: Jackson reports it
 * when a replay decodes, as it did before these questions were asked.
 */
final class DecodingIntrospector {

	private final DeserializationContext context;

	DecodingIntrospector(JsonMapper mapper) {
		// A context of its own: contexts are not shared between threads. Deserializers it
		// finds are cached by the mapper, so replays later find them ready.
		this.context = mapper._deserializationContext();
	}

	/**
	 * Whether stored values of the type carry a type id that decoding follows:
	 * {@code @JsonTypeInfo} on the type or a supertype, directly or through a mix-in.
	 * @param type the type
	 * @return whether subtypes of the type round-trip as themselves
	 */
	boolean hasTypeInformation(JavaType type) {
		try {
			return this.context.findTypeDeserializer(type) != null;
		}
		catch (JacksonException ex) {
			return true;
		}
	}

	/**
	 * Whether decoding an abstract type could not restore the class of the value that was
	 * encoded: Jackson either has nothing to build it with (no default implementation, no
	 * deserializer and no creator, so only a type id could name a class) or builds one
	 * fixed implementation as a bean, through an abstract-type mapping or
	 * {@code @JsonDeserialize(as = …)}, from what the declared type's serializer wrote.
	 * @param type the abstract type
	 * @return whether values of the type need type information to round-trip
	 */
	boolean cannotRestoreClass(JavaType type) {
		ValueDeserializer<Object> deserializer = deserializer(type);
		return deserializer instanceof AbstractDeserializer
				|| (deserializer instanceof BeanDeserializerBase bean && bean.handledType() != type.getRawClass());
	}

	/**
	 * Whether the mapper decodes the type as a bean of exactly its declared class, with
	 * Jackson's own bean deserializer: an instance of a subclass would be replayed as an
	 * instance of the declared class. A class with a deserializer of its own is trusted
	 * to build what it should.
	 * @param type the type
	 * @return whether a subclass instance would lose its class on replay
	 */
	boolean decodesAsDeclaredClass(JavaType type) {
		return deserializer(type) instanceof BeanDeserializerBase bean && bean.handledType() == type.getRawClass();
	}

	/**
	 * Return the type of the values Jackson decodes inside a container: the elements of
	 * an array or collection, the values of a map, the content of an {@code Optional} or
	 * other reference type.
	 * @param type the type
	 * @return the content type, or {@code null} when the type is not a container
	 */
	static @Nullable JavaType contentType(JavaType type) {
		return (type.isContainerType() || type.isReferenceType()) ? type.getContentType() : null;
	}

	/**
	 * Whether a class is an interface or an abstract class (primitive and array classes,
	 * which the JVM also marks abstract, are not).
	 * @param type the class
	 * @return whether the class cannot be instantiated itself
	 */
	static boolean isAbstract(Class<?> type) {
		return !type.isPrimitive() && !type.isArray() && Modifier.isAbstract(type.getModifiers());
	}

	private @Nullable ValueDeserializer<Object> deserializer(JavaType type) {
		try {
			return this.context.findNonContextualValueDeserializer(type);
		}
		catch (JacksonException ex) {
			return null;
		}
	}

}
