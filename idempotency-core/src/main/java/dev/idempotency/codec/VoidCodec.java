package dev.idempotency.codec;

import org.jspecify.annotations.Nullable;

/**
 * {@link ResultCodec.TypedCodec} for {@code void} and {@code Void}: there is no value to
 * keep, so it stores nothing and replays {@code null}.
 */
enum VoidCodec implements ResultCodec.TypedCodec {

	INSTANCE;

	private static final byte[] EMPTY = {};

	@Override
	public byte[] encode(@Nullable Object value) {
		return EMPTY;
	}

	@Override
	public @Nullable Object decode(byte[] bytes) {
		return null;
	}

	static boolean isVoid(@Nullable Class<?> type) {
		return type == void.class || type == Void.class;
	}

}
