package dev.idempotency.codec;

import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.BeanProperty;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.util.TokenBuffer;

/**
 * Writes a set with the serializer the mapper chose for it, then hands what that wrote on
 * as one embedded {@link UnorderedSets.Elements} object instead of as an array.
 */
final class SetMarkingSerializer extends ValueSerializer<Object> {

	private final ValueSerializer<Object> delegate;

	@SuppressWarnings("unchecked")
	SetMarkingSerializer(ValueSerializer<?> delegate) {
		this.delegate = (ValueSerializer<Object>) delegate;
	}

	@Override
	public void resolve(SerializationContext context) {
		this.delegate.resolve(context);
	}

	@Override
	public ValueSerializer<?> createContextual(SerializationContext context, BeanProperty property) {
		ValueSerializer<?> contextual = context.handleSecondaryContextualization(this.delegate, property);
		return (contextual == this.delegate) ? this : new SetMarkingSerializer(contextual);
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
		// Embedded, not written as a POJO: the tree keeps it as it is, for the canonical
		// writer to find
		generator.writeEmbeddedObject(new UnorderedSets.Elements(written));
	}

}
