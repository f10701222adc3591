package dev.idempotency.test.dynamodb;

import java.util.Locale;

/**
 * Where the DynamoDB server of the tests comes from, as named by
 * {@value DynamoDbDiscovery#SOURCE_VARIABLE}.
 */
enum DynamoDbSource {

	/**
	 * A running server, given by {@value DynamoDbDiscovery#URL_VARIABLE}.
	 */
	URL("a running server given by its endpoint"),

	/**
	 * A dynalite started from the machine.
	 */
	BINARY("a dynalite started from the machine");

	private final String description;

	DynamoDbSource(String description) {
		this.description = description;
	}

	String value() {
		return name().toLowerCase(Locale.ROOT);
	}

	String description() {
		return this.description;
	}

	static DynamoDbSource of(String value) {
		for (DynamoDbSource source : values()) {
			if (source.value().equals(value.trim().toLowerCase(Locale.ROOT))) {
				return source;
			}
		}
		throw new IllegalStateException(
				DynamoDbDiscovery.SOURCE_VARIABLE + "='" + value + "' is not one of url or binary");
	}

}
