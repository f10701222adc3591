package dev.idempotency.codec;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.deser.AbstractDeserializer;
import tools.jackson.databind.deser.SettableBeanProperty;
import tools.jackson.databind.deser.bean.BeanDeserializerBase;
import tools.jackson.databind.deser.jdk.NumberDeserializers;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.ser.BeanPropertyWriter;
import tools.jackson.databind.ser.PropertyWriter;
import tools.jackson.databind.ser.bean.BeanSerializerBase;

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

	private final SerializationContext serialization;

	DecodingIntrospector(JsonMapper mapper) {
		// Contexts of its own: contexts are not shared between threads. (De)serializers
		// they find are cached by the mapper, so calls later find them ready.
		this.context = mapper._deserializationContext();
		this.serialization = mapper._serializationContext();
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
				|| (deserializer instanceof BeanDeserializerBase bean && bean.handledType() != type.getRawClass())
				|| decodesToPlainValues(deserializer);
	}

	// Jackson's untyped deserializers handle Object: Serializable decodes to maps, lists,
	// strings and numbers whatever was stored, and
	// Number to an Integer, Long, BigInteger or Double (a BigDecimal loses digits, a Long
	// that fits comes back an Integer)
	private static boolean decodesToPlainValues(@Nullable ValueDeserializer<Object> deserializer) {
		return (deserializer != null && deserializer.handledType() == Object.class)
				|| deserializer instanceof NumberDeserializers.NumberDeserializer;
	}

	/**
	 * Return the properties through which the mapper decodes a type as a bean of exactly
	 * its declared class, each with its type resolved against the type's arguments (the
	 * {@code value} of a {@code Box<Shape>} is a {@code Shape}). Left out are properties
	 * whose decoding the application chose itself: with polymorphic type information, on
	 * the property or its type, or {@code @JsonDeserialize} on the property.
	 * @param type the type
	 * @return the properties, none when the type is not decoded as such a bean
	 */
	List<SettableBeanProperty> decodedProperties(JavaType type) {
		if (!(deserializer(type) instanceof BeanDeserializerBase bean) || bean.handledType() != type.getRawClass()) {
			return List.of();
		}
		List<SettableBeanProperty> properties = new ArrayList<>();
		for (Iterator<SettableBeanProperty> iterator = bean.properties(); iterator.hasNext();) {
			SettableBeanProperty property = iterator.next();
			if (!property.hasValueTypeDeserializer() && property.getAnnotation(JsonDeserialize.class) == null) {
				properties.add(property);
			}
		}
		return properties;
	}

	/**
	 * Find how the mapper reads a property of a bean it writes, to look at the value it
	 * wrote.
	 * @param type the bean's type
	 * @param name the property's name in JSON
	 * @return the property's writer, or {@code null} when the type is not written as a
	 * bean with such a property
	 */
	@Nullable BeanPropertyWriter writtenProperty(JavaType type, String name) {
		ValueSerializer<Object> serializer;
		try {
			serializer = this.serialization.findValueSerializer(type);
		}
		catch (JacksonException ex) {
			return null;
		}
		if (serializer instanceof BeanSerializerBase bean) {
			for (Iterator<PropertyWriter> iterator = bean.properties(); iterator.hasNext();) {
				if (iterator.next() instanceof BeanPropertyWriter property && property.getName().equals(name)) {
					return property;
				}
			}
		}
		return null;
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
	 * an array, collection or {@code Iterable}, the values of a map, the content of an
	 * {@code Optional} or other reference type.
	 * @param type the type
	 * @return the content type, or {@code null} when the type is not a container
	 */
	static @Nullable JavaType contentType(JavaType type) {
		if (type.isContainerType() || type.isReferenceType()) {
			return type.getContentType();
		}
		// Jackson types Iterable itself as a plain class, and decodes it as a list
		return (type.getRawClass() == Iterable.class) ? type.containedType(0) : null;
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
