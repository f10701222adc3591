package dev.idempotency.codec;

import org.jspecify.annotations.Nullable;

import org.springframework.core.ResolvableType;

/**
 * Encodes results to bytes for storage and decodes them for replay, always to a declared
 * type: a stored value can never choose the class it is decoded to.
 */
public interface ResultCodec {

	/**
	 * Prepare a codec for one declared type. Called once per operation when it is first
	 * resolved, never per call.
	 * @param type the declared (generic) result type
	 * @return a codec for values of that type
	 * @throws IllegalArgumentException when values of the type cannot be replayed safely,
	 * such as {@code Object}
	 */
	TypedCodec forType(ResolvableType type);

	/**
	 * Codec for values of one declared type.
	 */
	interface TypedCodec {

		/**
		 * Encode a value.
		 * @param value the value, possibly {@code null}
		 * @return the encoded bytes
		 * @throws RuntimeException when the value cannot be encoded
		 */
		byte[] encode(@Nullable Object value);

		/**
		 * Encode a value, giving up as soon as the encoding passes a size.
		 * @param value the value, possibly {@code null}
		 * @param maxBytes the most bytes the encoding may take
		 * @return the encoded bytes
		 * @throws ResultTooLargeException when the encoding would take more
		 * @throws RuntimeException when the value cannot be encoded
		 */
		default byte[] encode(@Nullable Object value, long maxBytes) {
			byte[] bytes = encode(value);
			if (bytes.length > maxBytes) {
				throw new ResultTooLargeException(maxBytes);
			}
			return bytes;
		}

		/**
		 * Decode bytes produced by {@link #encode}.
		 * @param bytes the encoded bytes
		 * @return the value, possibly {@code null}
		 * @throws RuntimeException when the bytes do not decode to the type
		 */
		@Nullable Object decode(byte[] bytes);

	}

}
