package dev.idempotency.store.redis;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.StoredResult;

/**
 * How a stored failure fits the record format without a change to the scripts, which pass
 * the record's {@code reason} and {@code body} through as opaque bytes: the reason is
 * {@link #MARKER}, which no reason written before failures existed can be (those are
 * sentences; the marker starts with a NUL byte), and the body holds the failure: <pre>
 * 1                 format version, one byte
 * length            of the type name in bytes, four bytes big-endian
 * type              the exception class name, UTF-8
 * 0 | 1             whether a message follows, one byte
 * message           the message, UTF-8, to the end
 * </pre> Anything else under the marker is not ours to interpret: decoding fails, saying
 * why.
 */
final class RedisFailures {

	/**
	 * The reason of a record whose body is a failure.
	 */
	static final String MARKER = "\0failure";

	private static final byte[] MARKER_BYTES = MARKER.getBytes(StandardCharsets.UTF_8);

	private static final byte VERSION = 1;

	private RedisFailures() {
	}

	static boolean isFailure(byte[] reason) {
		return Arrays.equals(reason, MARKER_BYTES);
	}

	static byte[] encode(StoredResult failure) {
		String type = failure.failureType();
		String message = failure.failureMessage();
		byte[] typeBytes = (type != null) ? type.getBytes(StandardCharsets.UTF_8) : new byte[0];
		byte[] messageBytes = (message != null) ? message.getBytes(StandardCharsets.UTF_8) : new byte[0];
		ByteBuffer buffer = ByteBuffer.allocate(1 + 4 + typeBytes.length + 1 + messageBytes.length);
		buffer.put(VERSION).putInt(typeBytes.length).put(typeBytes).put((byte) ((message != null) ? 1 : 0));
		return buffer.put(messageBytes).array();
	}

	/**
	 * Decode the body of a record whose reason is the {@link #MARKER}.
	 * @param body the body
	 * @return the failure
	 * @throws IllegalArgumentException if the body is not a failure, saying why
	 */
	static StoredResult decode(byte[] body) {
		ByteBuffer buffer = ByteBuffer.wrap(body);
		if (buffer.remaining() < 1 + 4 + 1 || buffer.get() != VERSION) {
			throw new IllegalArgumentException("its stored failure is not of format version " + VERSION);
		}
		int typeLength = buffer.getInt();
		if (typeLength <= 0 || typeLength > buffer.remaining() - 1) {
			throw new IllegalArgumentException("its stored failure has a type name of " + typeLength
					+ " bytes, in a body of " + body.length + " bytes");
		}
		String type = utf8(buffer, typeLength, "type name");
		byte hasMessage = buffer.get();
		if (hasMessage != 0 && hasMessage != 1) {
			throw new IllegalArgumentException("its stored failure has no valid message flag (" + hasMessage + ")");
		}
		if (hasMessage == 0 && buffer.hasRemaining()) {
			throw new IllegalArgumentException(
					"its stored failure has no message but " + buffer.remaining() + " bytes after its flag");
		}
		@Nullable String message = (hasMessage == 1) ? utf8(buffer, buffer.remaining(), "message") : null;
		return StoredResult.failure(type, message);
	}

	private static String utf8(ByteBuffer buffer, int length, String what) {
		ByteBuffer slice = buffer.slice(buffer.position(), length);
		buffer.position(buffer.position() + length);
		try {
			return StandardCharsets.UTF_8.newDecoder()
				.onMalformedInput(CodingErrorAction.REPORT)
				.onUnmappableCharacter(CodingErrorAction.REPORT)
				.decode(slice)
				.toString();
		}
		catch (CharacterCodingException ex) {
			throw new IllegalArgumentException("the " + what + " of its stored failure is not UTF-8", ex);
		}
	}

}
