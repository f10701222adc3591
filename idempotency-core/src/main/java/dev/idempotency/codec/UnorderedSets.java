package dev.idempotency.codec;

import java.util.Set;

import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.SerializationConfig;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.ser.ValueSerializerModifier;
import tools.jackson.databind.type.CollectionType;
import tools.jackson.databind.util.TokenBuffer;

/**
 * Marks, in the tree a payload is written to, the arrays that hold the elements of a
 * {@link Set}, so that {@link CanonicalJsonWriter} can write them in an order of their
 * own instead of the set's iteration order, which for equal sets may differ: a
 * {@code HashSet} iterates by hash codes and capacity, and a set of enums, or of records
 * holding enums, hashes by identity, so differently on every JVM.
 * <p>
 * The set is still written by the serializer the mapper chose for it, with its property's
 * annotations; only what it wrote is handed on as one {@link Elements} object instead of
 * as an array ({@link SetMarkingSerializer}).
 */
final class UnorderedSets {

	private UnorderedSets() {
	}

	/**
	 * Return a module that makes a mapper write every {@link Set} as {@link Elements}.
	 * @return the module
	 */
	static SimpleModule module() {
		return new SimpleModule("UnorderedSets").setSerializerModifier(new ValueSerializerModifier() {

			private static final long serialVersionUID = 1L;

			@Override
			public ValueSerializer<?> modifyCollectionSerializer(SerializationConfig config, CollectionType valueType,
					BeanDescription.Supplier beanDesc, ValueSerializer<?> serializer) {
				return Set.class.isAssignableFrom(valueType.getRawClass()) ? new SetMarkingSerializer(serializer)
						: serializer;
			}

		});
	}

	/**
	 * What a set's serializer wrote: a JSON array whose order does not count.
	 *
	 * @param written the tokens of the array
	 */
	record Elements(TokenBuffer written) {

	}

}
