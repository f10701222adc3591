package dev.idempotency.autoconfigure.amqp;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Where the RabbitMQ of the tests comes from: the values of
 * {@value TestRabbit#SOURCE_VARIABLE}.
 */
enum RabbitSource {

	/**
	 * A running broker at {@value TestRabbit#URL_VARIABLE}.
	 */
	URL("a running RabbitMQ at " + TestRabbit.URL_VARIABLE),

	/**
	 * A container that Testcontainers starts.
	 */
	TESTCONTAINERS("a RabbitMQ container from Testcontainers"),

	/**
	 * A {@code rabbitmq-server} from the {@code PATH}, started on free ports.
	 */
	BINARY("a rabbitmq-server from the PATH");

	private final String description;

	RabbitSource(String description) {
		this.description = description;
	}

	String value() {
		return name().toLowerCase(Locale.ROOT);
	}

	String description() {
		return this.description;
	}

	static RabbitSource of(String value) {
		for (RabbitSource source : values()) {
			if (source.value().equals(value.trim().toLowerCase(Locale.ROOT))) {
				return source;
			}
		}
		throw new IllegalStateException(TestRabbit.SOURCE_VARIABLE + "='" + value + "' is not one of "
				+ Arrays.stream(values()).map(RabbitSource::value).collect(Collectors.joining(", ")));
	}

}
