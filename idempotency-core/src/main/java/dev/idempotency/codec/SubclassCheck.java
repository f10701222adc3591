package dev.idempotency.codec;

import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;

/**
 * Finds, in a result about to be stored, a value whose class is not exactly the class the
 * method declared for it, where decoding would build the declared class: the result
 * itself, an element of a returned collection or array, a map value, the content of an
 * {@code Optional}, at any depth of such containers.
 * <p>
 * What to look at is worked out once per declared type, so a call pays only for the parts
 * that can hold such a value: none for final classes (records, {@code String}, boxed
 * primitives), enums, abstract types, {@code Object}, classes with polymorphic type
 * information or a deserializer of their own; a container is walked only when its element
 * type needs checking. Bean properties are not inspected.
 */
abstract class SubclassCheck {

	/**
	 * Prepare the check of a declared type.
	 * @param declared the declared type
	 * @param introspector how the codec's mapper decodes types
	 * @return the check, or {@code null} when no value of the type can need one
	 */
	static @Nullable SubclassCheck forType(JavaType declared, DecodingIntrospector introspector) {
		return plan(declared, declared, introspector);
	}

	/**
	 * Check a value of the declared type.
	 * @param value the value, not {@code null}
	 * @throws UnreplayableResultException when the value, or a value it contains, is not
	 * of the class declared for it
	 */
	abstract void check(Object value);

	private static @Nullable SubclassCheck plan(JavaType type, JavaType declared, DecodingIntrospector introspector) {
		JavaType content = DecodingIntrospector.contentType(type);
		if (content == null) {
			return needsExactClass(type, introspector) ? new ExactClass(type.getRawClass(), declared, type == declared)
					: null;
		}
		SubclassCheck inner = plan(content, declared, introspector);
		if (inner == null) {
			return null;
		}
		Class<?> raw = type.getRawClass();
		if (type.isArrayType()) {
			return new ArrayElements(inner);
		}
		if (type.isMapLikeType()) {
			return Map.class.isAssignableFrom(raw) ? new MapValues(inner) : null;
		}
		if (type.isCollectionLikeType()) {
			return Iterable.class.isAssignableFrom(raw) ? new Elements(inner) : null;
		}
		if (raw == Optional.class || raw == AtomicReference.class) {
			return new ReferenceContent(inner);
		}
		// Reference types of other libraries: their content is out of reach here
		return null;
	}

	private static boolean needsExactClass(JavaType type, DecodingIntrospector introspector) {
		Class<?> raw = type.getRawClass();
		if (Modifier.isFinal(raw.getModifiers()) || DecodingIntrospector.isAbstract(raw) || raw.isPrimitive()
				|| raw.isEnum() || raw == Object.class) {
			return false;
		}
		return !introspector.hasTypeInformation(type) && introspector.decodesAsDeclaredClass(type);
	}

	/**
	 * A value that must be of exactly one class.
	 */
	private static final class ExactClass extends SubclassCheck {

		private final Class<?> type;

		private final JavaType declared;

		private final boolean root;

		ExactClass(Class<?> type, JavaType declared, boolean root) {
			this.type = type;
			this.declared = declared;
			this.root = root;
		}

		@Override
		void check(Object value) {
			if (value.getClass() != this.type) {
				throw new UnreplayableResultException(reason(value.getClass()), value.getClass(), this.type);
			}
		}

		private String reason(Class<?> actual) {
			String found = (this.root ? "its result is a " : "its result holds a ") + actual.getName();
			String where = this.root ? "the declared " + this.type.getName()
					: this.type.getName() + " as declared in " + this.declared.toCanonical();
			if (!this.type.isAssignableFrom(actual)) {
				return found + ", not " + (this.root ? "" : "a ") + where;
			}
			return found + ", a subclass of " + where + ", whose extra fields would be lost on replay";
		}

	}

	/**
	 * The elements of a collection.
	 */
	private static final class Elements extends SubclassCheck {

		private final SubclassCheck element;

		Elements(SubclassCheck element) {
			this.element = element;
		}

		@Override
		void check(Object value) {
			for (Object element : (Iterable<?>) value) {
				if (element != null) {
					this.element.check(element);
				}
			}
		}

	}

	/**
	 * The elements of an array of objects.
	 */
	private static final class ArrayElements extends SubclassCheck {

		private final SubclassCheck element;

		ArrayElements(SubclassCheck element) {
			this.element = element;
		}

		@Override
		void check(Object value) {
			for (Object element : (Object[]) value) {
				if (element != null) {
					this.element.check(element);
				}
			}
		}

	}

	/**
	 * The values of a map.
	 */
	private static final class MapValues extends SubclassCheck {

		private final SubclassCheck element;

		MapValues(SubclassCheck element) {
			this.element = element;
		}

		@Override
		void check(Object value) {
			for (Object element : ((Map<?, ?>) value).values()) {
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
