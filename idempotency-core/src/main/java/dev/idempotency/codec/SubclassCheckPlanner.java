package dev.idempotency.codec;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.deser.SettableBeanProperty;
import tools.jackson.databind.ser.BeanPropertyWriter;

/**
 * Works out the {@link SubclassCheck} of one declared type, once: which containers to
 * walk, which bean properties to read and which values must be of exactly their declared
 * class, leaving out every part that cannot hold a value of another class.
 */
final class SubclassCheckPlanner {

	// Bounds the preparation of a type whose properties expand it without end
	// (Node<T> holding a Node<List<T>>); what lies deeper is not checked
	private static final int MAX_BEAN_TYPES = 256;

	private final JavaType declared;

	private final DecodingIntrospector introspector;

	// Bean types being planned. A type met again inside itself is first taken to
	// need no check; only if it turns out to need one is it planned again, with the
	// check it is getting, once that is known, standing in for it inside itself
	private final Set<JavaType> inProgress = new HashSet<>();

	private final Set<JavaType> metInside = new HashSet<>();

	private final Map<JavaType, Deferred> recursive = new HashMap<>();

	private int beanTypes;

	/**
	 * Create the planner of one declared type.
	 * @param declared the declared type
	 * @param introspector how the codec's mapper decodes types
	 */
	SubclassCheckPlanner(JavaType declared, DecodingIntrospector introspector) {
		this.declared = declared;
		this.introspector = introspector;
	}

	/**
	 * Plan the check of a type.
	 * @param type the type
	 * @param where where the type is declared, for the message
	 * @param container how a container of the type was declared, for the message
	 * @return the check, or {@code null} when no value of the type can need one
	 */
	@Nullable SubclassCheck plan(JavaType type, String where, String container) {
		JavaType content = DecodingIntrospector.contentType(type);
		if (content == null) {
			return planLeaf(type, where);
		}
		SubclassCheck inner = plan(content, content.getRawClass().getName() + " as declared in " + container,
				container);
		if (inner == null) {
			return null;
		}
		Class<?> raw = type.getRawClass();
		if (type.isArrayType()) {
			return new ElementsCheck(inner, (array) -> Arrays.asList((Object[]) array));
		}
		if (type.isMapLikeType()) {
			return Map.class.isAssignableFrom(raw) ? new ElementsCheck(inner, (map) -> ((Map<?, ?>) map).values())
					: null;
		}
		if (Iterable.class.isAssignableFrom(raw)) {
			// Collections, and Iterable itself, which Jackson takes for a reference
			// type
			return new ElementsCheck(inner, (iterable) -> (Iterable<?>) iterable);
		}
		if (raw == Optional.class || raw == AtomicReference.class) {
			return new ReferenceContentCheck(inner);
		}
		// Reference types of other libraries: their content is out of reach here
		return null;
	}

	private @Nullable SubclassCheck planLeaf(JavaType type, String where) {
		if (!decodedAsBean(type)) {
			return null;
		}
		Deferred recursive = this.recursive.get(type);
		if (recursive != null) {
			return recursive;
		}
		if (this.inProgress.contains(type)) {
			this.metInside.add(type);
			return null;
		}
		if (this.beanTypes++ >= MAX_BEAN_TYPES) {
			return null;
		}
		SubclassCheck check = planBean(type, where);
		if (check != null && this.metInside.remove(type)) {
			Deferred deferred = new Deferred();
			this.recursive.put(type, deferred);
			check = planBean(type, where);
			deferred.target = check;
		}
		return check;
	}

	private @Nullable SubclassCheck planBean(JavaType type, String where) {
		this.inProgress.add(type);
		List<PropertiesCheck.Property> properties = planProperties(type);
		this.inProgress.remove(type);
		SubclassCheck ofProperties = properties.isEmpty() ? null : new PropertiesCheck(properties);
		return Modifier.isFinal(type.getRawClass().getModifiers()) ? ofProperties
				: new ExactClassCheck(type.getRawClass(), where, type == this.declared, ofProperties);
	}

	private List<PropertiesCheck.Property> planProperties(JavaType type) {
		List<PropertiesCheck.Property> properties = new ArrayList<>();
		for (SettableBeanProperty property : this.introspector.decodedProperties(type)) {
			JavaType propertyType = property.getType();
			String of = " for property '" + property.getName() + "' of " + type.getRawClass().getName();
			SubclassCheck check = plan(propertyType, propertyType.getRawClass().getName() + " as declared" + of,
					propertyType.toCanonical() + of);
			BeanPropertyWriter writer = (check != null) ? this.introspector.writtenProperty(type, property.getName())
					: null;
			if (check != null && writer != null) {
				properties.add(new PropertiesCheck.Property(writer, check));
			}
		}
		return properties;
	}

	// A class the mapper builds itself, as a bean of exactly this class: a value of a
	// subclass would lose its class, and the bean's properties are decoded as
	// declared
	private boolean decodedAsBean(JavaType type) {
		Class<?> raw = type.getRawClass();
		if (DecodingIntrospector.isAbstract(raw) || raw.isPrimitive() || raw.isEnum() || raw == Object.class) {
			return false;
		}
		return !this.introspector.hasTypeInformation(type) && this.introspector.decodesAsDeclaredClass(type);
	}

	/**
	 * The check of a bean type met again inside itself, known once its planning ends.
	 */
	private static final class Deferred extends SubclassCheck {

		private @Nullable SubclassCheck target;

		@Override
		void check(Object value) {
			SubclassCheck target = this.target;
			if (target != null) {
				target.check(value);
			}
		}

	}

}
