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
	 * such as {@code Object}, or an interface whose values could not be decoded to their
	 * own classes; the message names the type and the reason
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
		 * @throws UnreplayableResultException when the value would not decode to what it
		 * is, such as an instance of a subclass of the declared class
		 * @throws RuntimeException when the value cannot be encoded
		 */
		byte[] encode(@Nullable Object value);

		/**
		 * Encode a value, giving up as soon as its encoding exceeds {@code maxBytes}.
		 * Called for every result stored, so an implementation should stop writing at the
		 * limit rather than encode the whole value first: this default does the latter,
		 * and suits only codecs whose encodings are small.
		 * <p>
		 * Whatever the value throws while it is encoded (an {@link Error} from a getter
		 * included) propagates unchanged or wrapped, as {@link #encode(Object)} does.
		 * @param value the value, possibly {@code null}
		 * @param maxBytes the largest encoding accepted, in bytes
		 * @return the encoded bytes, at most {@code maxBytes} of them
		 * @throws ResultTooLargeException when the encoding exceeds {@code maxBytes}
		 * @throws UnreplayableResultException when the value would not decode to what it
		 * is, such as an instance of a subclass of the declared class
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
		 * Return whether a value that the method returned is a failure rather than its
		 * outcome, such as a response entity with a server error status: its record is
		 * then released for a retry, as when the method throws, and the caller still gets
		 * the value. This default says no value is one.
		 * @param value the value, possibly {@code null}
		 * @return whether the value releases its record instead of completing it
		 */
		default boolean isFailure(@Nullable Object value) {
			return false;
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
