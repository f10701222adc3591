package dev.idempotency.codec;

import java.util.Set;

import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.SerializationConfig;
import tools.jackson.databind.SerializationContext;
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
 * as an array.
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
				return Set.class.isAssignableFrom(valueType.getRawClass()) ? new MarkingSerializer(serializer)
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

	/**
	 * Writes a set with its own serializer, then hands what it wrote on as one embedded
	 * object.
	 */
	private static final class MarkingSerializer extends ValueSerializer<Object> {

		private final ValueSerializer<Object> delegate;

		@SuppressWarnings("unchecked")
		MarkingSerializer(ValueSerializer<?> delegate) {
			this.delegate = (ValueSerializer<Object>) delegate;
		}

		@Override
		public void resolve(SerializationContext context) {
			this.delegate.resolve(context);
		}

		@Override
		public ValueSerializer<?> createContextual(SerializationContext context, BeanProperty property) {
			ValueSerializer<?> contextual = context.handleSecondaryContextualization(this.delegate, property);
			return (contextual == this.delegate) ? this : new MarkingSerializer(contextual);
		}

		@Override
		public boolean isEmpty(SerializationContext context, Object value) {
			return this.delegate.isEmpty(context, value);
		}

		@Override
		public Class<?> handledType() {
			return this.delegate.handledType();
		}

		@Override
		public void serialize(Object value, JsonGenerator generator, SerializationContext context) {
			TokenBuffer written = context.bufferForValueConversion();
			this.delegate.serialize(value, written, context);
			// Embedded, not written as a POJO: the tree keeps it as it is, for the
			// canonical
			// writer to find
			generator.writeEmbeddedObject(new Elements(written));
		}

	}

}
