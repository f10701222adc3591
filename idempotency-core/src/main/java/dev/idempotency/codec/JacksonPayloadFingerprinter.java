package dev.idempotency.codec;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.util.Assert;

/**
 * {@link PayloadFingerprinter} that returns the SHA-256 digest (32 bytes) of a payload's
 * canonical JSON: map entries and {@code JsonNode} properties ordered by key, bean and
 * record properties ordered by name, no whitespace, no type ids. Equal payloads, such as
 * maps filled in a different order or records with equal components, get equal
 * fingerprints on every JVM that uses an equally configured mapper.
 *
 * <p>
 * A {@code null} payload is fingerprinted as {@code null}. A payload that cannot be
 * written as JSON makes {@link #fingerprint} throw Jackson's {@code JacksonException}.
 * Collections are written in their iteration order, so a {@code HashSet} is only as
 * canonical as its iteration order.
 */
public class JacksonPayloadFingerprinter implements PayloadFingerprinter {

	private static final String ALGORITHM = "SHA-256";

	private final ObjectWriter writer;

	/**
	 * Create a fingerprinter with a default {@link JsonMapper}.
	 */
	public JacksonPayloadFingerprinter() {
		this(JsonMapper.builder().build());
	}

	/**
	 * Create a fingerprinter that writes payloads with the application's mapper, made
	 * canonical.
	 * @param mapper the mapper to derive the canonical mapper from
	 */
	public JacksonPayloadFingerprinter(JsonMapper mapper) {
		Assert.notNull(mapper, "'mapper' must not be null");
		JsonMapper canonical = mapper.rebuild()
			.enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
			// Every record component is a creator property: sorting them first would keep
			// declaration order
			.disable(MapperFeature.SORT_CREATOR_PROPERTIES_FIRST)
			.enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
			.enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED)
			.disable(SerializationFeature.INDENT_OUTPUT)
			// Double.toString prints some values differently before JDK 19; Jackson's
			// writer prints the same shortest digits on every JDK
			.enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
			// A type id would tie the fingerprint to class names
			.deactivateDefaultTyping()
			.build();
		this.writer = canonical.writer();
	}

	@Override
	public byte[] fingerprint(@Nullable Object payload) {
		return sha256(canonicalJson(payload));
	}

	/**
	 * Write a payload as canonical JSON.
	 * @param payload the payload, possibly {@code null}
	 * @return the UTF-8 bytes of its canonical JSON
	 */
	byte[] canonicalJson(@Nullable Object payload) {
		return this.writer.writeValueAsBytes(payload);
	}

	private static byte[] sha256(byte[] bytes) {
		try {
			// A new digest per call: cheap, and nothing to share between threads
			return MessageDigest.getInstance(ALGORITHM).digest(bytes);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ALGORITHM + " is required of every Java platform", ex);
		}
	}

}
