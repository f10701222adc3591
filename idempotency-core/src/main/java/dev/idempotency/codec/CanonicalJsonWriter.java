package dev.idempotency.codec;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.SerializableString;
import tools.jackson.core.io.NumberOutput;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.POJONode;
import tools.jackson.databind.util.RawValue;

/**
 * Writes a JSON tree in the canonical form that {@link JacksonPayloadFingerprinter}
 * digests: equal content gives equal bytes however it was spelled or ordered.
 * <ul>
 * <li>object properties sorted by name, after normalisation, in {@link String#compareTo}
 * order (UTF-16 code units);</li>
 * <li>every string, property names included, in Unicode Normalization Form C;</li>
 * <li>every number written from its exact decimal value, with trailing zeros dropped: as
 * plain digits when it is an integer with at most {@value #MAX_PLAIN_ZEROS} trailing
 * zeros, as {@link BigDecimal#toString()} writes it otherwise ({@code 0.1},
 * {@code 1E+21}); a {@code float} or {@code double} is taken at its shortest decimal
 * representation, so {@code 0.1} is 0.1 and not its binary approximation; {@code NaN} and
 * the infinities as the strings Jackson writes for them;</li>
 * <li>the elements of a {@link java.util.Set} (marked by {@link UnorderedSets}) sorted by
 * their canonical UTF-8 bytes, compared as unsigned bytes; other arrays in order;</li>
 * <li>binary data as the base64 string JSON carries it in, so a {@code byte[]} and the
 * string of its base64 are equal;</li>
 * <li>no whitespace.</li>
 * </ul>
 */
final class CanonicalJsonWriter {

	/**
	 * Most trailing zeros written out in plain digits: bounds the text of a number like
	 * {@code 1e1000000}, which is then written as {@code 1E+1000000}.
	 */
	static final int MAX_PLAIN_ZEROS = 20;

	// Every character below the first combining mark is in NFC, alone or followed by
	// another such character, so strings of them need no normalisation
	private static final char FIRST_COMBINING_MARK = '\u0300';

	// Integral doubles below 2^63 are written as the long they equal, without BigDecimal
	private static final double LONG_RANGE = 0x1p63;

	private static final JsonFactory FACTORY = JsonFactory.builder().build();

	// Names that normalise alike are ordered as given, so that their order never depends
	// on the order of the map or object they came from
	private static final Comparator<Map.Entry<String, JsonNode>> BY_NAME = Comparator
		.comparing((Map.Entry<String, JsonNode> property) -> nfc(property.getKey()))
		.thenComparing(Map.Entry::getKey);

	private final JsonMapper mapper;

	/**
	 * Create a writer.
	 * @param mapper the mapper that writes embedded values the tree holds as objects
	 */
	CanonicalJsonWriter(JsonMapper mapper) {
		this.mapper = mapper;
	}

	/**
	 * Write a tree canonically as UTF-8.
	 * @param tree the tree
	 * @param output where to write it; not closed
	 */
	void write(JsonNode tree, OutputStream output) {
		try (JsonGenerator generator = FACTORY.createGenerator(ObjectWriteContext.empty(), output)) {
			write(tree, generator);
		}
	}

	/**
	 * Normalise a string to Unicode Normalization Form C.
	 * @param text the string
	 * @return its NFC form, the same instance when it is already in NFC
	 */
	static String nfc(String text) {
		for (int i = 0; i < text.length(); i++) {
			if (text.charAt(i) >= FIRST_COMBINING_MARK) {
				return Normalizer.normalize(text, Normalizer.Form.NFC);
			}
		}
		return text;
	}

	private void write(JsonNode node, JsonGenerator generator) {
		switch (node.getNodeType()) {
			case OBJECT -> writeObject(node, generator);
			case ARRAY -> writeArray(node, generator);
			case STRING -> generator.writeString(nfc(node.stringValue()));
			case NUMBER -> writeNumber(node, generator);
			case BOOLEAN -> generator.writeBoolean(node.booleanValue());
			case BINARY -> generator.writeBinary(node.binaryValue());
			case POJO -> writeEmbedded(((POJONode) node).getPojo(), generator);
			case NULL, MISSING -> generator.writeNull();
		}
	}

	private void writeObject(JsonNode node, JsonGenerator generator) {
		List<Map.Entry<String, JsonNode>> properties = new ArrayList<>(node.properties());
		properties.sort(BY_NAME);
		generator.writeStartObject();
		for (Map.Entry<String, JsonNode> property : properties) {
			generator.writeName(nfc(property.getKey()));
			write(property.getValue(), generator);
		}
		generator.writeEndObject();
	}

	private void writeArray(JsonNode node, JsonGenerator generator) {
		generator.writeStartArray();
		for (JsonNode element : node.values()) {
			write(element, generator);
		}
		generator.writeEndArray();
	}

	private static void writeNumber(JsonNode node, JsonGenerator generator) {
		switch (node.numberType()) {
			case INT, LONG -> generator.writeNumber(node.longValue());
			case BIG_INTEGER -> writeDecimal(new BigDecimal(node.bigIntegerValue()), generator);
			case BIG_DECIMAL -> writeDecimal(node.decimalValue(), generator);
			case FLOAT -> {
				float value = node.floatValue();
				if (!writeExceptionalOrIntegral(value, generator)) {
					writeDecimal(new BigDecimal(NumberOutput.toString(value, true)), generator);
				}
			}
			case DOUBLE -> {
				double value = node.doubleValue();
				if (!writeExceptionalOrIntegral(value, generator)) {
					writeDecimal(new BigDecimal(NumberOutput.toString(value, true)), generator);
				}
			}
		}
	}

	private static boolean writeExceptionalOrIntegral(double value, JsonGenerator generator) {
		if (!Double.isFinite(value)) {
			generator.writeString(Double.toString(value));
			return true;
		}
		if (value == Math.rint(value) && Math.abs(value) < LONG_RANGE) {
			generator.writeNumber((long) value);
			return true;
		}
		return false;
	}

	private static void writeDecimal(BigDecimal value, JsonGenerator generator) {
		BigDecimal stripped = value.stripTrailingZeros();
		int scale = stripped.scale();
		boolean plain = scale <= 0 && scale >= -MAX_PLAIN_ZEROS;
		generator.writeNumber(plain ? stripped.toPlainString() : stripped.toString());
	}

	// A tree holds as objects what Jackson writes without breaking it down: byte arrays,
	// raw JSON, and whatever a serializer writes as an embedded object
	private void writeEmbedded(@Nullable Object value, JsonGenerator generator) {
		if (value == null) {
			generator.writeNull();
		}
		else if (value instanceof byte[] bytes) {
			generator.writeBinary(bytes);
		}
		else if (value instanceof UnorderedSets.Elements set) {
			writeUnordered(this.mapper.readTree(set.written()), generator);
		}
		else if (value instanceof RawValue raw && raw.rawValue() instanceof String json) {
			write(this.mapper.readTree(json), generator);
		}
		else if (value instanceof RawValue raw && raw.rawValue() instanceof SerializableString json) {
			write(this.mapper.readTree(json.getValue()), generator);
		}
		else {
			JsonNode tree = this.mapper.valueToTree(value);
			if (tree instanceof POJONode) {
				throw new IllegalArgumentException("a " + value.getClass().getName()
						+ " in the payload is written as an embedded object, not as JSON, and cannot be fingerprinted");
			}
			write(tree, generator);
		}
	}

	// Sorted by their own canonical form, so that equal sets give equal bytes whatever
	// order they iterate in; comparing bytes, not nodes, needs no ordering of JSON values
	private void writeUnordered(JsonNode array, JsonGenerator generator) {
		List<byte[]> elements = new ArrayList<>(array.size());
		for (JsonNode element : array.values()) {
			ByteArrayOutputStream canonical = new ByteArrayOutputStream();
			write(element, canonical);
			elements.add(canonical.toByteArray());
		}
		elements.sort(Arrays::compareUnsigned);
		generator.writeStartArray();
		for (byte[] element : elements) {
			generator.writeRawValue(new String(element, StandardCharsets.UTF_8));
		}
		generator.writeEndArray();
	}

}
