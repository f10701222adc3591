package dev.idempotency.test.jdbc;

import java.util.Locale;

/**
 * Where a database server of the tests comes from, as named by
 * {@value DatabaseDiscovery#SOURCE_VARIABLE}.
 */
enum DatabaseSource {

	/**
	 * A running server, given by its kind's URL variable.
	 */
	URL("a running server given by its URL"),

	/**
	 * A container that Testcontainers starts.
	 */
	TESTCONTAINERS("a container from Testcontainers"),

	/**
	 * A server started from the machine's binaries.
	 */
	BINARY("a server started from the machine's binaries");

	private final String description;

	DatabaseSource(String description) {
		this.description = description;
	}

	String value() {
		return name().toLowerCase(Locale.ROOT);
	}

	String description() {
		return this.description;
	}

	static DatabaseSource of(String value) {
		for (DatabaseSource source : values()) {
			if (source.value().equals(value.trim().toLowerCase(Locale.ROOT))) {
				return source;
			}
		}
		throw new IllegalStateException(
				DatabaseDiscovery.SOURCE_VARIABLE + "='" + value + "' is not one of url, testcontainers or binary");
	}

}
