package dev.idempotency.store.dynamodb;

import java.math.BigDecimal;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.dynamodb.StoredItem.NotARecord;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Reads the attributes of an item by their expected types, saying precisely which one is
 * missing or of another type.
 */
final class ItemReader {

	private final Map<String, AttributeValue> item;

	ItemReader(Map<String, AttributeValue> item) {
		this.item = item;
	}

	long number(String name) throws NotARecord {
		Long value = optionalNumber(name);
		if (value == null) {
			throw new NotARecord("it has no number attribute '" + name + "'");
		}
		return value;
	}

	@Nullable Long optionalNumber(String name) throws NotARecord {
		AttributeValue value = this.item.get(name);
		if (value == null) {
			return null;
		}
		if (value.n() == null) {
			throw wrongType(name, "a number");
		}
		try {
			return Long.parseLong(value.n());
		}
		catch (NumberFormatException ex) {
			throw new NotARecord("its attribute '" + name + "' is " + value.n()
					+ (isWhole(value.n()) ? ", past a 64-bit integer" : ", not a whole number"));
		}
	}

	private static boolean isWhole(String number) {
		try {
			return new BigDecimal(number).stripTrailingZeros().scale() <= 0;
		}
		catch (NumberFormatException ex) {
			return false;
		}
	}

	String string(String name) throws NotARecord {
		String value = optionalString(name);
		if (value == null) {
			throw new NotARecord("it has no string attribute '" + name + "'");
		}
		return value;
	}

	@Nullable String optionalString(String name) throws NotARecord {
		AttributeValue value = this.item.get(name);
		if (value == null) {
			return null;
		}
		if (value.s() == null) {
			throw wrongType(name, "a string");
		}
		return value.s();
	}

	boolean flag(String name) throws NotARecord {
		AttributeValue value = this.item.get(name);
		if (value == null || value.bool() == null) {
			throw (value == null) ? new NotARecord("it has no boolean attribute '" + name + "'")
					: wrongType(name, "a boolean");
		}
		return value.bool();
	}

	byte @Nullable [] optionalBytes(String name) throws NotARecord {
		AttributeValue value = this.item.get(name);
		if (value == null) {
			return null;
		}
		if (value.b() == null) {
			throw wrongType(name, "binary");
		}
		return value.b().asByteArray();
	}

	private NotARecord wrongType(String name, String expected) {
		return new NotARecord("its attribute '" + name + "' is not " + expected);
	}

}
