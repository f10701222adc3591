package dev.idempotency.web;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import dev.idempotency.codec.ResultCodec;
import dev.idempotency.codec.ResultTooLargeException;

import org.springframework.core.ResolvableType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * {@link ResultCodec} that stores a {@code ResponseEntity<T>}: its status, its
 * {@code Content-Type} and the headers of an allow-list, and its body, the body encoded
 * by another codec as the declared {@code T}. Every other type goes to that codec
 * unchanged.
 * <p>
 * Other headers are neither stored nor replayed: a response's headers may belong to its
 * caller, as a {@code Set-Cookie} does, which is never stored, even when listed. A stored
 * response is filtered again when it is decoded, so a record stored with more headers
 * replays only those of the allow-list.
 * <p>
 * A response with a server error status (5xx) is a {@linkplain TypedCodec#isFailure
 * failure}: its record is released for a retry, as when the method throws, unless server
 * errors are replayed.
 * <p>
 * The stored form is a version byte, the status, each header with its values, and the
 * body's own bytes. A header name or value longer than 65535 bytes in UTF-8 cannot be
 * stored, and the response is then not replayable, as any result that cannot be encoded.
 */
public final class ResponseEntityResultCodec implements ResultCodec {

	private static final boolean WEB_PRESENT = ClassUtils.isPresent("org.springframework.http.ResponseEntity",
			ResponseEntityResultCodec.class.getClassLoader());

	private static final int VERSION = 1;

	/**
	 * Headers replayed by default, besides {@code Content-Type}.
	 */
	public static final List<String> DEFAULT_REPLAYED_HEADERS = List.of("Location", "Content-Location",
			"Content-Language", "ETag", "Last-Modified", "Link");

	/**
	 * Headers never stored, even when listed: they set state in the first caller's
	 * client, such as its session, which a replay would hand to another caller.
	 */
	public static final List<String> NEVER_REPLAYED_HEADERS = List.of("Set-Cookie", "Set-Cookie2");

	private final ResultCodec bodies;

	// Lower case, so that names match whatever their case
	private final Set<String> replayedHeaders;

	private final boolean replayServerErrors;

	private ResponseEntityResultCodec(ResultCodec bodies, Collection<String> replayedHeaders,
			boolean replayServerErrors) {
		this.bodies = bodies;
		Set<String> names = new TreeSet<>();
		names.add("content-type");
		for (String name : replayedHeaders) {
			Assert.hasText(name, "'replayedHeaders' must not contain an empty name");
			names.add(name.trim().toLowerCase(Locale.ROOT));
		}
		NEVER_REPLAYED_HEADERS.forEach((name) -> names.remove(name.toLowerCase(Locale.ROOT)));
		this.replayedHeaders = Set.copyOf(names);
		this.replayServerErrors = replayServerErrors;
	}

	/**
	 * Return a codec that stores response entities with the
	 * {@linkplain #DEFAULT_REPLAYED_HEADERS default headers}, releases those with a
	 * server error status, and leaves every other type to a codec, or that codec itself
	 * when Spring Web is not on the classpath.
	 * @param codec the codec of bodies and other results
	 * @return the codec to prepare result types with
	 */
	public static ResultCodec wrap(ResultCodec codec) {
		return wrap(codec, DEFAULT_REPLAYED_HEADERS, false);
	}

	/**
	 * Return a codec that stores response entities and leaves every other type to a
	 * codec, or that codec itself when Spring Web is not on the classpath or the codec
	 * already stores response entities.
	 * @param codec the codec of bodies and other results
	 * @param replayedHeaders names of the headers stored and replayed besides
	 * {@code Content-Type}, in any case; the {@linkplain #NEVER_REPLAYED_HEADERS never
	 * replayed} ones are ignored
	 * @param replayServerErrors whether a response with a server error status (5xx) is
	 * stored and replayed, rather than released for a retry
	 * @return the codec to prepare result types with
	 */
	public static ResultCodec wrap(ResultCodec codec, Collection<String> replayedHeaders, boolean replayServerErrors) {
		Assert.notNull(codec, "'codec' must not be null");
		Assert.notNull(replayedHeaders, "'replayedHeaders' must not be null");
		return (WEB_PRESENT && !(codec instanceof ResponseEntityResultCodec))
				? new ResponseEntityResultCodec(codec, replayedHeaders, replayServerErrors) : codec;
	}

	/**
	 * Return whether a header is stored and replayed: {@code Content-Type}, or one of the
	 * replayed headers this codec was created with, never a {@code Set-Cookie}.
	 * @param name the header name, in any case
	 * @return whether it is replayed
	 */
	public boolean isReplayed(String name) {
		return this.replayedHeaders.contains(name.toLowerCase(Locale.ROOT));
	}

	@Override
	public TypedCodec forType(ResolvableType type) {
		if (!ResponseEntity.class.equals(type.resolve())) {
			return this.bodies.forType(type);
		}
		ResolvableType body = type.as(ResponseEntity.class).getGeneric(0);
		try {
			return new EntityCodec(this.bodies.forType(body), this);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("The body of " + type + " cannot be replayed: " + ex.getMessage(), ex);
		}
	}

	private record EntityCodec(TypedCodec body, ResponseEntityResultCodec entities) implements TypedCodec {

		@Override
		public boolean isFailure(@Nullable Object value) {
			return !this.entities.replayServerErrors && value instanceof ResponseEntity<?> entity
					&& entity.getStatusCode().is5xxServerError();
		}

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
					writeHeaders(out, replayed(entity.getHeaders()));
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

		private List<Map.Entry<String, List<String>>> replayed(HttpHeaders headers) {
			List<Map.Entry<String, List<String>>> replayed = new ArrayList<>();
			for (Map.Entry<String, List<String>> header : headers.headerSet()) {
				if (this.entities.isReplayed(header.getKey())) {
					replayed.add(header);
				}
			}
			return replayed;
		}

		private static void writeHeaders(DataOutputStream out, List<Map.Entry<String, List<String>>> headers)
				throws IOException {
			out.writeInt(headers.size());
			for (Map.Entry<String, List<String>> header : headers) {
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
					// A record stored before the allow-list, or under a longer one,
					// replays only what the allow-list holds now
					boolean replayed = this.entities.isReplayed(name);
					int values = in.readInt();
					for (int j = 0; j < values; j++) {
						String value = in.readUTF();
						if (replayed) {
							headers.add(name, value);
						}
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
