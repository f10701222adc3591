package dev.idempotency.codec;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.util.Assert;

/**
 * {@link PayloadFingerprinter} that hashes the payload's canonical JSON with SHA-256: map
 * entries ordered by key and properties alphabetically, so equal payloads give equal
 * fingerprints whatever the order they were built in, across JVMs and restarts.
 */
public class JacksonPayloadFingerprinter implements PayloadFingerprinter {

	private final ObjectWriter writer;

	/**
	 * Create a fingerprinter with a default {@link JsonMapper}.
	 */
	public JacksonPayloadFingerprinter() {
		this(JsonMapper.builder().build());
	}

	/**
	 * Create a fingerprinter that follows the given mapper's configuration (modules,
	 * naming), made canonical.
	 * @param mapper the mapper, typically the application's
	 */
	public JacksonPayloadFingerprinter(JsonMapper mapper) {
		Assert.notNull(mapper, "'mapper' must not be null");
		JsonMapper canonical = mapper.rebuild()
			.enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
			.enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
			// Records' properties are all creator properties, which otherwise stay first
			// in declaration order.
			.disable(MapperFeature.SORT_CREATOR_PROPERTIES_FIRST)
			.disable(SerializationFeature.INDENT_OUTPUT)
			.build();
		this.writer = canonical.writer();
	}

	@Override
	public byte[] fingerprint(@Nullable Object payload) {
		return sha256(this.writer.writeValueAsBytes(payload));
	}

	private static byte[] sha256(byte[] bytes) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(bytes);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

}
