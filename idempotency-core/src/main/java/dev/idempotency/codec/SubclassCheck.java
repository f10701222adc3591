package dev.idempotency.codec;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;

/**
 * Finds, in a result about to be stored, a value whose class is not exactly the class the
 * method declared for it, where decoding would build the declared class: the result
 * itself, an element of a returned collection, {@code Iterable} or array, a map value,
 * the content of an {@code Optional}, a property of a bean (records included), at any
 * depth of such containers and beans.
 * <p>
 * What to look at is worked out once per declared type ({@link SubclassCheckPlanner}), so
 * a call pays only for the parts that can hold such a value: nothing for final classes
 * (records, {@code String}, boxed primitives) whose properties cannot hold one either,
 * enums, abstract types, {@code Object}, classes with polymorphic type information or a
 * deserializer of their own; a container is walked only when its element type needs
 * checking, and a bean's property is read only when its declared type needs checking (a
 * non-final concrete class decoded as a bean, or a container or bean that can hold one).
 * A property with type information or {@code @JsonDeserialize} of its own is not
 * inspected.
 */
abstract class SubclassCheck {

	/**
	 * Prepare the check of a declared type.
	 * @param declared the declared type
	 * @param introspector how the codec's mapper decodes types
	 * @return the check, or {@code null} when no value of the type can need one
	 */
	static @Nullable SubclassCheck forType(JavaType declared, DecodingIntrospector introspector) {
		return new SubclassCheckPlanner(declared, introspector).plan(declared,
				"the declared " + declared.getRawClass().getName(), declared.toCanonical());
	}

	/**
	 * Check a value of the declared type.
	 * @param value the value, not {@code null}
	 * @throws UnreplayableResultException when the value, or a value it contains, is not
	 * of the class declared for it
	 */
	abstract void check(Object value);

}
