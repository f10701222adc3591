package dev.idempotency.test.dynamodb;

import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * Decides where the DynamoDB server of the tests comes from, from the environment and
 * from what this machine offers; dynalite is looked for only when the decision needs it.
 */
final class DynamoDbDiscovery {

	static final String SOURCE_VARIABLE = "IDEMPOTENCY_TEST_DYNAMODB";

	static final String URL_VARIABLE = "IDEMPOTENCY_TEST_DYNAMODB_URL";

	static final String EXAMPLE_URL = "http://127.0.0.1:4567";

	private final Function<String, @Nullable String> environment;

	private final BooleanSupplier dynaliteFound;

	DynamoDbDiscovery(Function<String, @Nullable String> environment, BooleanSupplier dynaliteFound) {
		this.environment = environment;
		this.dynaliteFound = dynaliteFound;
	}

	/**
	 * Look at this JVM's environment and this machine.
	 * @return the discovery
	 */
	static DynamoDbDiscovery ofThisMachine() {
		return new DynamoDbDiscovery(System::getenv, () -> Dynalite.find().isPresent());
	}

	/**
	 * Return the endpoint of a running server, if one is given.
	 * @return the endpoint, or {@code null}
	 */
	@Nullable String url() {
		String url = this.environment.apply(URL_VARIABLE);
		return (url != null && !url.isBlank()) ? url.trim() : null;
	}

	/**
	 * Decide where the server that the tests share comes from.
	 * @return the source
	 * @throws IllegalStateException if none can give one, with what to do about it
	 */
	DynamoDbSource sharedSource() {
		DynamoDbSource required = required();
		if (required != null) {
			check(required);
			return required;
		}
		if (url() != null) {
			return DynamoDbSource.URL;
		}
		if (this.dynaliteFound.getAsBoolean()) {
			return DynamoDbSource.BINARY;
		}
		throw new IllegalStateException("These tests need a real DynamoDB-compatible server, and none was found. "
				+ "Either set " + URL_VARIABLE + " to the endpoint of a running one (for example " + EXAMPLE_URL
				+ "); or install dynalite (" + Dynalite.INSTALL + ") so that the tests start their own.");
	}

	/**
	 * Decide where a server that a test restarts, kills and closes comes from: only a
	 * dynalite of the machine gives one.
	 * @return {@link DynamoDbSource#BINARY}
	 * @throws IllegalStateException if dynalite is not found, or another source is
	 * demanded, with what to do about it
	 */
	DynamoDbSource privateSource() {
		DynamoDbSource required = required();
		if (required != null && required != DynamoDbSource.BINARY) {
			throw new IllegalStateException("This test needs a DynamoDB server of its own, to restart or kill, "
					+ "which only a dynalite of the machine gives, but " + SOURCE_VARIABLE + "=" + required.value()
					+ " demands " + required.description() + ". Unset it or set it to binary, with dynalite "
					+ "installed (" + Dynalite.INSTALL + ").");
		}
		if (!this.dynaliteFound.getAsBoolean()) {
			throw new IllegalStateException("This test needs a DynamoDB server of its own, to restart or kill, "
					+ "which only a dynalite of the machine gives, and none was found: install it (" + Dynalite.INSTALL
					+ ").");
		}
		return DynamoDbSource.BINARY;
	}

	private @Nullable DynamoDbSource required() {
		String value = this.environment.apply(SOURCE_VARIABLE);
		return (value != null && !value.isBlank()) ? DynamoDbSource.of(value) : null;
	}

	private void check(DynamoDbSource required) {
		String demanded = SOURCE_VARIABLE + "=" + required.value() + " demands " + required.description()
				+ " for the DynamoDB of the tests, but ";
		switch (required) {
			case URL -> {
				if (url() == null) {
					throw new IllegalStateException(
							demanded + URL_VARIABLE + " is not set; set it, for example " + "to " + EXAMPLE_URL + ".");
				}
			}
			case BINARY -> {
				if (!this.dynaliteFound.getAsBoolean()) {
					throw new IllegalStateException(
							demanded + "dynalite was not found: install it (" + Dynalite.INSTALL + ").");
				}
			}
		}
	}

}
