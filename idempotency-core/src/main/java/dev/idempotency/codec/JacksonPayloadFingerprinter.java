package dev.idempotency.codec;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.util.Assert;

/**
 * {@link PayloadFingerprinter} that returns the SHA-256 digest (32 bytes) of a payload's
 * canonical JSON, so that the same request sent again, even re-serialised differently by
 * its client, gets the same fingerprint, and a different request a different one.
 *
 * <p>
 * The payload is first written as a JSON tree by the application's mapper (its modules,
 * naming strategy and property annotations apply; default typing never does, so no type
 * ids). The tree is then written canonically:
 * <ul>
 * <li><b>Objects</b> (beans, records, maps, {@code JsonNode} objects) have their
 * properties sorted by name, whatever the declaration order, {@code @JsonPropertyOrder}
 * or map iteration order.</li>
 * <li><b>Strings</b>, values and property names, are compared in Unicode Normalization
 * Form C: {@code "e\u0301"} (e and a combining accent) and {@code "\u00e9"} (é) are
 * equal; case and everything else still count.</li>
 * <li><b>Numbers</b> compare by value, whatever their Java type or spelling: {@code 1},
 * {@code 1.0}, {@code 1.00}, {@code 1e0}, {@code Integer} 1, {@code Double} 1.0 and
 * {@code BigDecimal} 1.00 are equal. A {@code float} or {@code double} counts as its
 * shortest decimal representation ({@code 0.1}, not the binary fraction nearest to it),
 * so a {@code double} 0.1 equals a {@code BigDecimal} 0.1. {@code NaN} and the infinities
 * count as the strings Jackson writes for them. A number the mapper writes as a string
 * (through {@code @JsonFormat(shape = STRING)}, say) is a string.</li>
 * <li><b>Arrays, lists and other collections</b> keep their order: {@code [1,2]} and
 * {@code [2,1]} differ.</li>
 * <li><b>Sets</b> (every {@link java.util.Set}: {@code HashSet}, {@code EnumSet},
 * {@code LinkedHashSet} and {@code TreeSet} alike, since a set's order is not part of its
 * equality) have their elements sorted by their canonical JSON, so equal sets are equal
 * whatever order they iterate in. The sort needs each element's canonical JSON apart,
 * which costs a copy of the set's JSON per set.</li>
 * <li><b>Binary data</b> ({@code byte[]}) counts as the base64 string JSON carries it in,
 * so {@code new byte[] {1, 2}} and the string {@code "AQI="} are equal, as they are on
 * the wire. A request decoded from JSON gets the same Java types every time, so this only
 * matters where one call puts bytes and another a string into a property typed
 * {@code Object}.</li>
 * <li>{@code null} is fingerprinted as JSON {@code null}; a missing property and a
 * property whose value is {@code null} differ unless the mapper leaves out nulls.</li>
 * </ul>
 * Payloads that are equal by these rules get equal fingerprints on every JVM that uses an
 * equally configured mapper. A payload that cannot be written as JSON makes
 * {@link #fingerprint} throw Jackson's {@code JacksonException}, or an
 * {@link IllegalArgumentException} for a value the mapper embeds as an object.
 */
public class JacksonPayloadFingerprinter implements PayloadFingerprinter {

	private static final String ALGORITHM = "SHA-256";

	private final JsonMapper mapper;

	private final CanonicalJsonWriter writer;

	/**
	 * Create a fingerprinter with a default {@link JsonMapper}.
	 */
	public JacksonPayloadFingerprinter() {
		this(JsonMapper.builder().build());
	}

	/**
	 * Create a fingerprinter that writes payloads with the application's mapper, then
	 * makes them canonical.
	 * @param mapper the mapper to derive the fingerprinter's mapper from
	 */
	public JacksonPayloadFingerprinter(JsonMapper mapper) {
		Assert.notNull(mapper, "'mapper' must not be null");
		// A type id would tie the fingerprint to class names
		this.mapper = mapper.rebuild().deactivateDefaultTyping().addModule(UnorderedSets.module()).build();
		this.writer = new CanonicalJsonWriter(this.mapper);
	}

	@Override
	public byte[] fingerprint(@Nullable Object payload) {
		MessageDigest digest = sha256();
		this.writer.write(tree(payload), new DigestingOutputStream(digest));
		return digest.digest();
	}

	/**
	 * Write a payload as canonical JSON.
	 * @param payload the payload, possibly {@code null}
	 * @return the UTF-8 bytes of its canonical JSON
	 */
	byte[] canonicalJson(@Nullable Object payload) {
		ByteArrayOutputStream output = new ByteArrayOutputStream();
		this.writer.write(tree(payload), output);
		return output.toByteArray();
	}

	private JsonNode tree(@Nullable Object payload) {
		return (payload instanceof JsonNode node) ? node : this.mapper.valueToTree(payload);
	}

	private static MessageDigest sha256() {
		try {
			// A new digest per call: cheap, and nothing to share between threads
			return MessageDigest.getInstance(ALGORITHM);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ALGORITHM + " is required of every Java platform", ex);
		}
	}

	/**
	 * Feeds what is written to a digest, so the canonical JSON is never kept.
	 */
	private static final class DigestingOutputStream extends OutputStream {

		private final MessageDigest digest;

		DigestingOutputStream(MessageDigest digest) {
			this.digest = digest;
		}

		@Override
		public void write(int b) {
			this.digest.update((byte) b);
		}

		@Override
		public void write(byte[] bytes, int offset, int length) {
			this.digest.update(bytes, offset, length);
		}

	}

}
