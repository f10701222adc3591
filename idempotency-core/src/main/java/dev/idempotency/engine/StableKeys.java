package dev.idempotency.engine;

import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;

import org.jspecify.annotations.Nullable;

/**
 * Tells whether the string of a key value is the same on every call for the same value.
 * It is not for an array or an object whose class keeps {@link Object#toString()} (both
 * print an identity hash), nor for a set or map without a defined order (its string may
 * list the same entries in another order: {@code Set.of} and {@code Map.of} change their
 * order from one JVM to the next). Such a key would make every call look new and silently
 * turn idempotency off. Collections, maps, map entries, {@code Optional}s and records are
 * judged by what they hold too, since their strings are made of their parts' strings. A
 * class is judged once, so a key costs a lookup (and one per part of a container).
 */
final class StableKeys {

	private static final ClassValue<Kind> KINDS = new ClassValue<>() {

		@Override
		protected Kind computeValue(Class<?> type) {
			return Kind.of(type);
		}

	};

	// The accessors of a record's components, whose strings make up the record's
	private static final ClassValue<Method[]> COMPONENTS = new ClassValue<>() {

		@Override
		protected Method[] computeValue(Class<?> type) {
			RecordComponent[] components = type.getRecordComponents();
			Method[] accessors = new Method[components.length];
			for (int i = 0; i < components.length; i++) {
				accessors[i] = components[i].getAccessor();
				accessors[i].trySetAccessible();
			}
			return accessors;
		}

	};

	private StableKeys() {
	}

	/**
	 * Return what makes the string of a key value unstable.
	 * @param value the key value
	 * @return a description of the value that says why, such as
	 * {@code "a com.example.Event, which does not override toString() ..."}, or
	 * {@code null} if the string is stable
	 */
	static @Nullable String problem(Object value) {
		Class<?> type = value.getClass();
		return switch (KINDS.get(type)) {
			case VALUE -> null;
			case COLLECTION -> holding(value, (Collection<?>) value);
			case MAP -> holding(value, ((Map<?, ?>) value).keySet(), ((Map<?, ?>) value).values());
			case OPTIONAL -> holding(value, ((Optional<?>) value).stream().toList());
			case ENTRY ->
				holding(value, Arrays.asList(((Map.Entry<?, ?>) value).getKey(), ((Map.Entry<?, ?>) value).getValue()));
			case RECORD -> holding(value, components(value));
			case IDENTITY -> "a " + type.getTypeName() + ", which does not override toString(), so its string names "
					+ "the object's identity and changes on every call";
			case ARRAY -> "an array (" + type.getTypeName() + "), whose string names the array's identity and "
					+ "changes on every call";
			case UNORDERED -> "a " + type.getTypeName() + ", a set or map without a defined order, so its string "
					+ "may list the same entries in another order on another call or JVM (use a List, or a sorted "
					+ "or linked set or map)";
		};
	}

	private static List<@Nullable Object> components(Object record) {
		Method[] accessors = COMPONENTS.get(record.getClass());
		List<@Nullable Object> values = new ArrayList<>(accessors.length);
		for (Method accessor : accessors) {
			try {
				values.add(accessor.invoke(record));
			}
			catch (ReflectiveOperationException | RuntimeException ex) {
				// A component that cannot be read is judged by the record's own string
				values.add(null);
			}
		}
		return values;
	}

	private static @Nullable String holding(Object container, Collection<?>... contents) {
		for (Collection<?> elements : contents) {
			for (Object element : elements) {
				// A container that holds itself prints "(this Collection)", which is
				// stable.
				if (element != null && element != container && !(element instanceof String)) {
					String problem = problem(element);
					if (problem != null) {
						return "a " + container.getClass().getTypeName() + " holding " + problem;
					}
				}
			}
		}
		return null;
	}

	/**
	 * What the string of the instances of a class is worth as a key.
	 */
	enum Kind {

		/**
		 * Stable: the class overrides {@code toString()}.
		 */
		VALUE,

		/**
		 * An ordered collection: stable if its elements are.
		 */
		COLLECTION,

		/**
		 * An ordered map: stable if its keys and values are.
		 */
		MAP,

		/**
		 * A record: stable if its components are, which its string is made of.
		 */
		RECORD,

		/**
		 * An {@code Optional}: stable if what it holds is.
		 */
		OPTIONAL,

		/**
		 * A map entry: stable if its key and value are.
		 */
		ENTRY,

		/**
		 * The class keeps {@code Object.toString()}.
		 */
		IDENTITY,

		/**
		 * An array, which keeps {@code Object.toString()}.
		 */
		ARRAY,

		/**
		 * A set or map whose order is not defined.
		 */
		UNORDERED;

		static Kind of(Class<?> type) {
			if (type.isArray()) {
				return ARRAY;
			}
			if (!overridesToString(type)) {
				return IDENTITY;
			}
			if (Set.class.isAssignableFrom(type)) {
				return isAny(type, SortedSet.class, LinkedHashSet.class, EnumSet.class) ? COLLECTION : UNORDERED;
			}
			if (Map.class.isAssignableFrom(type)) {
				return isAny(type, SortedMap.class, LinkedHashMap.class, EnumMap.class) ? MAP : UNORDERED;
			}
			if (Collection.class.isAssignableFrom(type)) {
				return COLLECTION;
			}
			if (type.isRecord()) {
				return RECORD;
			}
			if (type == Optional.class) {
				return OPTIONAL;
			}
			return Map.Entry.class.isAssignableFrom(type) ? ENTRY : VALUE;
		}

		private static boolean isAny(Class<?> type, Class<?>... ordered) {
			for (Class<?> candidate : ordered) {
				if (candidate.isAssignableFrom(type)) {
					return true;
				}
			}
			return false;
		}

		private static boolean overridesToString(Class<?> type) {
			// Known without reflection, which a native image allows only on registered
			// classes: a JDK collection or map (the runtime class of a List.of is no
			// parameter's type), an enum, a record, a String
			if (type.isRecord() || type.isEnum() || type == String.class
					|| isAny(type, AbstractCollection.class, AbstractMap.class, Enum.class)) {
				return true;
			}
			try {
				Method toString = type.getMethod("toString");
				return toString.getDeclaringClass() != Object.class;
			}
			catch (NoSuchMethodException | LinkageError ex) {
				// Every class has toString(): a native image that was not told about the
				// class answers so (or with a MissingReflectionRegistrationError)
				throw new IllegalStateException("Cannot tell whether " + type.getName()
						+ ", the class of a key value, overrides toString(): in a native image, register it with "
						+ "@RegisterReflection(classes = " + type.getSimpleName() + ".class)", ex);
			}
		}

	}

}
