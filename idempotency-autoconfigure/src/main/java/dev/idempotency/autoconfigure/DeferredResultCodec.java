package dev.idempotency.autoconfigure;

import dev.idempotency.codec.ResultCodec;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.ResolvableType;
import org.springframework.util.function.SingletonSupplier;

/**
 * {@link ResultCodec} that looks the codec bean up when the first operation is resolved.
 * The operation source is created with the advisor, while bean post-processors are still
 * being registered; creating the codec then would also create the application's
 * {@code JsonMapper} too early for the post-processors to see it.
 */
final class DeferredResultCodec implements ResultCodec {

	private final SingletonSupplier<ResultCodec> codec;

	DeferredResultCodec(ObjectProvider<ResultCodec> codec) {
		this.codec = SingletonSupplier.of(codec::getObject);
	}

	@Override
	public TypedCodec forType(ResolvableType type) {
		return this.codec.obtain().forType(type);
	}

}
