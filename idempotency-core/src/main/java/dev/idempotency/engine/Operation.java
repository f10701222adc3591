package dev.idempotency.engine;

import dev.idempotency.codec.ResultCodec.TypedCodec;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * An operation resolved once and run many times.
 *
 * @param name the operation name
 * @param settings its effective settings
 * @param codec codec of its declared result type, or {@code null} for {@code void}
 * @param keySource where its key comes from, for error messages (such as
 * {@code "key expression '#event.id' of Payments.handle(Event)"})
 */
public record Operation(String name, OperationSettings settings, @Nullable TypedCodec codec, String keySource) {

	public Operation {
		Assert.hasText(name, "'name' must not be empty");
		Assert.notNull(settings, "'settings' must not be null");
		Assert.hasText(keySource, "'keySource' must not be empty");
	}

}
