package dev.idempotency.codec;

import java.lang.reflect.Modifier;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.deser.SettableBeanProperty;
import tools.jackson.databind.ser.BeanPropertyWriter;

/**
 * Finds, in a result about to be stored, a value whose class is not exactly the class the
 * method declared for it, where decoding would build the declared class: the result
 * itself, an element of a returned collection, {@code Iterable} or array, a map value,
 * the content of an {@code Optional}, a property of a bean (records included), at any
 * depth of such containers and beans.
 * <p>
 * What to look at is worked out once per declared type, so a call pays only for the parts
 * that can hold such a value: nothing for final classes (records, {@code String}, boxed
 * primitives) whose properties cannot hold one either, enums, abstract types,
 * {@code Object}, classes with polymorphic type information or a deserializer of their
 * own; a container is walked only when its element type needs checking, and a bean's
 * property is read only when its declared type needs checking (a non-final concrete class
 * decoded as a bean, or a container or bean that can hold one). A property with type
 * information or {@code @JsonDeserialize} of its own is not inspected.
 */
abstract class SubclassCheck {

	// Bounds the preparation of a type whose properties expand it without end
	// (Node<T> holding a Node<List<T>>); what lies deeper is not checked
	private static final int MAX_BEAN_TYPES = 256;

	/**
	 * Prepare the check of a declared type.
	 * @param declared the declared type
	 * @param introspector how the codec's mapper decodes types
	 * @return the check, or {@code null} when no value of the type can need one
	 */
	static @Nullable SubclassCheck forType(JavaType declared, DecodingIntrospector introspector) {
		return new Planner(declared, introspector).plan(declared, "the declared " + declared.getRawClass().getName(),
				declared.toCanonical());
	}

	/**
	 * Check a value of the declared type.
	 * @param value the value, not {@code null}
	 * @throws UnreplayableResultException when the value, or a value it contains, is not
	 * of the class declared for it
	 */
	abstract void check(Object value);

	/**
	 * Works out the check of one declared type.
	 */
	private static final class Planner {

		private final JavaType declared;

		private final DecodingIntrospector introspector;

		// Bean types being planned. A type met again inside itself is first taken to
		// need no check; only if it turns out to need one is it planned again, with the
		// check it is getting, once that is known, standing in for it inside itself
		private final Set<JavaType> inProgress = new HashSet<>();

		private final Set<JavaType> metInside = new HashSet<>();

		private final Map<JavaType, Deferred> recursive = new HashMap<>();

		private int beanTypes;

		Planner(JavaType declared, DecodingIntrospector introspector) {
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
				return new Elements(inner, (array) -> Arrays.asList((Object[]) array));
			}
			if (type.isMapLikeType()) {
				return Map.class.isAssignableFrom(raw) ? new Elements(inner, (map) -> ((Map<?, ?>) map).values())
						: null;
			}
			if (Iterable.class.isAssignableFrom(raw)) {
				// Collections, and Iterable itself, which Jackson takes for a reference
				// type
				return new Elements(inner, (iterable) -> (Iterable<?>) iterable);
			}
			if (raw == Optional.class || raw == AtomicReference.class) {
				return new ReferenceContent(inner);
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
			List<PropertyValue> properties = planProperties(type);
			this.inProgress.remove(type);
			SubclassCheck ofProperties = properties.isEmpty() ? null : new Properties(properties);
			return Modifier.isFinal(type.getRawClass().getModifiers()) ? ofProperties
					: new ExactClass(type.getRawClass(), where, type == this.declared, ofProperties);
		}

		private List<PropertyValue> planProperties(JavaType type) {
			List<PropertyValue> properties = new ArrayList<>();
			for (SettableBeanProperty property : this.introspector.decodedProperties(type)) {
				JavaType propertyType = property.getType();
				String of = " for property '" + property.getName() + "' of " + type.getRawClass().getName();
				SubclassCheck check = plan(propertyType, propertyType.getRawClass().getName() + " as declared" + of,
						propertyType.toCanonical() + of);
				BeanPropertyWriter writer = (check != null)
						? this.introspector.writtenProperty(type, property.getName()) : null;
				if (check != null && writer != null) {
					properties.add(new PropertyValue(writer, check));
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

	}

	/**
	 * A value that must be of exactly one class, then possibly the properties it holds.
	 */
	private static final class ExactClass extends SubclassCheck {

		private final Class<?> type;

		private final String where;

		private final boolean root;

		private final @Nullable SubclassCheck properties;

		ExactClass(Class<?> type, String where, boolean root, @Nullable SubclassCheck properties) {
			this.type = type;
			this.where = where;
			this.root = root;
			this.properties = properties;
		}

		@Override
		void check(Object value) {
			if (value.getClass() != this.type) {
				throw new UnreplayableResultException(reason(value.getClass()), value.getClass(), this.type);
			}
			if (this.properties != null) {
				this.properties.check(value);
			}
		}

		private String reason(Class<?> actual) {
			String found = (this.root ? "its result is a " : "its result holds a ") + actual.getName();
			if (!this.type.isAssignableFrom(actual)) {
				return found + ", not " + (this.root ? "" : "a ") + this.where;
			}
			return found + ", a subclass of " + this.where + ", whose extra fields would be lost on replay";
		}

	}

	/**
	 * The properties of a bean that can hold a value of another class than declared.
	 */
	private static final class Properties extends SubclassCheck {

		private final PropertyValue[] properties;

		Properties(List<PropertyValue> properties) {
			this.properties = properties.toArray(PropertyValue[]::new);
		}

		@Override
		void check(Object value) {
			for (PropertyValue property : this.properties) {
				property.check(value);
			}
		}

	}

	/**
	 * One property of a bean, read as the mapper read it to write it.
	 */
	private static final class PropertyValue {

		private final BeanPropertyWriter writer;

		private final SubclassCheck check;

		PropertyValue(BeanPropertyWriter writer, SubclassCheck check) {
			this.writer = writer;
			this.check = check;
		}

		void check(Object bean) {
			Object value;
			try {
				value = this.writer.get(bean);
			}
			catch (RuntimeException ex) {
				throw ex;
			}
			catch (Exception ex) {
				throw new UndeclaredThrowableException(ex);
			}
			if (value != null) {
				this.check.check(value);
			}
		}

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

	/**
	 * The elements of a container: a collection or {@code Iterable}, an array of objects,
	 * or the values of a map.
	 */
	private static final class Elements extends SubclassCheck {

		private final SubclassCheck element;

		private final Function<Object, Iterable<?>> elements;

		Elements(SubclassCheck element, Function<Object, Iterable<?>> elements) {
			this.element = element;
			this.elements = elements;
		}

		@Override
		void check(Object value) {
			for (Object element : this.elements.apply(value)) {
				if (element != null) {
					this.element.check(element);
				}
			}
		}

	}

	/**
	 * The content of an {@code Optional} or {@code AtomicReference}.
	 */
	private static final class ReferenceContent extends SubclassCheck {

		private final SubclassCheck content;

		ReferenceContent(SubclassCheck content) {
			this.content = content;
		}

		@Override
		void check(Object value) {
			Object content = (value instanceof Optional<?> optional) ? optional.orElse(null)
					: ((AtomicReference<?>) value).get();
			if (content != null) {
				this.content.check(content);
			}
		}

	}

}
