package dev.idempotency.web;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.idempotency.codec.ResultCodec;
import dev.idempotency.codec.ResultTooLargeException;

import org.springframework.core.ResolvableType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * {@link ResultCodec} that stores a {@code ResponseEntity<T>} whole: its status, the
 * headers it set and its body, the body encoded by another codec as the declared
 * {@code T}. Every other type goes to that codec unchanged.
 * <p>
 * The stored form is a version byte, the status, each header with its values, and the
 * body's own bytes. A header name or value longer than 65535 bytes in UTF-8 cannot be
 * stored, and the response is then not replayable, as any result that cannot be encoded.
 */
public final class ResponseEntityResultCodec implements ResultCodec {

	private static final boolean WEB_PRESENT = ClassUtils.isPresent("org.springframework.http.ResponseEntity",
			ResponseEntityResultCodec.class.getClassLoader());

	private static final int VERSION = 1;

	private final ResultCodec bodies;

	private ResponseEntityResultCodec(ResultCodec bodies) {
		this.bodies = bodies;
	}

	/**
	 * Return a codec that stores response entities and leaves every other type to a
	 * codec, or that codec itself when Spring Web is not on the classpath.
	 * @param codec the codec of bodies and other results
	 * @return the codec to prepare result types with
	 */
	public static ResultCodec wrap(ResultCodec codec) {
		Assert.notNull(codec, "'codec' must not be null");
		return (WEB_PRESENT && !(codec instanceof ResponseEntityResultCodec)) ? new ResponseEntityResultCodec(codec)
				: codec;
	}

	@Override
	public TypedCodec forType(ResolvableType type) {
		if (!ResponseEntity.class.equals(type.resolve())) {
			return this.bodies.forType(type);
		}
		ResolvableType body = type.as(ResponseEntity.class).getGeneric(0);
		try {
			return new EntityCodec(this.bodies.forType(body));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("The body of " + type + " cannot be replayed: " + ex.getMessage(), ex);
		}
	}

	private record EntityCodec(TypedCodec body) implements TypedCodec {

		@Override
		public byte[] encode(@Nullable Object value) {
			return encode(value, Long.MAX_VALUE);
		}

		@Override
		public byte[] encode(@Nullable Object value, long maxBytes) {
			ByteArrayOutputStream bytes = new ByteArrayOutputStream();
			try (DataOutputStream out = new DataOutputStream(bytes)) {
				out.writeByte(VERSION);
				if (!(value instanceof ResponseEntity<?> entity)) {
					out.writeBoolean(false);
				}
				else {
					out.writeBoolean(true);
					out.writeInt(entity.getStatusCode().value());
					writeHeaders(out, entity.getHeaders());
					byte[] encodedBody = this.body.encode(entity.getBody(), maxBytes);
					out.writeInt(encodedBody.length);
					out.write(encodedBody);
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			if (bytes.size() > maxBytes) {
				throw new ResultTooLargeException(maxBytes);
			}
			return bytes.toByteArray();
		}

		private static void writeHeaders(DataOutputStream out, HttpHeaders headers) throws IOException {
			Set<Map.Entry<String, List<String>>> entries = headers.headerSet();
			out.writeInt(entries.size());
			for (Map.Entry<String, List<String>> header : entries) {
				out.writeUTF(header.getKey());
				out.writeInt(header.getValue().size());
				for (String value : header.getValue()) {
					out.writeUTF(value);
				}
			}
		}

		@Override
		public @Nullable Object decode(byte[] bytes) {
			try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
				int version = in.readUnsignedByte();
				if (version != VERSION) {
					throw new IllegalArgumentException("Unknown version " + version + " of a stored response entity");
				}
				if (!in.readBoolean()) {
					return null;
				}
				int status = in.readInt();
				HttpHeaders headers = new HttpHeaders();
				int count = in.readInt();
				for (int i = 0; i < count; i++) {
					String name = in.readUTF();
					int values = in.readInt();
					for (int j = 0; j < values; j++) {
						headers.add(name, in.readUTF());
					}
				}
				byte[] encodedBody = new byte[in.readInt()];
				in.readFully(encodedBody);
				return ResponseEntity.status(status).headers(headers).body(this.body.decode(encodedBody));
			}
			catch (IOException ex) {
				throw new IllegalArgumentException("Stored response entity is truncated or corrupt", ex);
			}
		}

	}

}
