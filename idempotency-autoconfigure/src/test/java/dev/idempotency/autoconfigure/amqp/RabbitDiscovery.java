package dev.idempotency.autoconfigure.amqp;

import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * Decides where the RabbitMQ of the tests comes from, in the order and with the switches
 * of the Redis of the tests ({@code TestRedis}); asks Docker only when the decision needs
 * it, since that takes a while.
 */
final class RabbitDiscovery {

	static final String GET_ONE = "Either set " + TestRabbit.URL_VARIABLE
			+ "=amqp://user:password@host:port to use a running RabbitMQ; or run a Docker daemon so that "
			+ "Testcontainers starts " + TestRabbit.image() + " (" + TestRabbit.IMAGE_VARIABLE + " names another "
			+ "image); or install rabbitmq-server on the PATH (apt-get install rabbitmq-server, brew install "
			+ "rabbitmq) so that the tests start their own.";

	private final Function<String, @Nullable String> environment;

	private final BooleanSupplier dockerAnswers;

	private final BooleanSupplier binaryFound;

	RabbitDiscovery(Function<String, @Nullable String> environment, BooleanSupplier dockerAnswers,
			BooleanSupplier binaryFound) {
		this.environment = environment;
		this.dockerAnswers = dockerAnswers;
		this.binaryFound = binaryFound;
	}

	static RabbitDiscovery ofThisMachine() {
		return new RabbitDiscovery(System::getenv, () -> RabbitContainers.isDockerAvailable(),
				() -> RabbitServerProcess.findBinary().isPresent());
	}

	@Nullable String url() {
		String url = this.environment.apply(TestRabbit.URL_VARIABLE);
		return (url != null && !url.isBlank()) ? url.trim() : null;
	}

	/**
	 * Decide where the broker that the tests share comes from.
	 * @return the source
	 * @throws IllegalStateException if none can give one, with what to do about it
	 */
	RabbitSource source() {
		String value = this.environment.apply(TestRabbit.SOURCE_VARIABLE);
		if (value != null && !value.isBlank()) {
			RabbitSource required = RabbitSource.of(value);
			check(required);
			return required;
		}
		if (url() != null) {
			return RabbitSource.URL;
		}
		if (this.dockerAnswers.getAsBoolean()) {
			return RabbitSource.TESTCONTAINERS;
		}
		if (this.binaryFound.getAsBoolean()) {
			return RabbitSource.BINARY;
		}
		throw new IllegalStateException("These tests need a real RabbitMQ, and none was found. " + GET_ONE);
	}

	private void check(RabbitSource required) {
		String demanded = TestRabbit.SOURCE_VARIABLE + "=" + required.value() + " demands " + required.description()
				+ ", but ";
		switch (required) {
			case URL -> {
				if (url() == null) {
					throw new IllegalStateException(demanded + TestRabbit.URL_VARIABLE + " is not set.");
				}
			}
			case TESTCONTAINERS -> {
				if (!this.dockerAnswers.getAsBoolean()) {
					throw new IllegalStateException(demanded + "no Docker daemon answers (DOCKER_HOST="
							+ this.environment.apply("DOCKER_HOST") + "): start one, or unset "
							+ TestRabbit.SOURCE_VARIABLE + " to let the tests find another RabbitMQ.");
				}
			}
			case BINARY -> {
				if (!this.binaryFound.getAsBoolean()) {
					throw new IllegalStateException(demanded + "there is no rabbitmq-server on the PATH: install "
							+ "one (apt-get install rabbitmq-server, brew install rabbitmq).");
				}
			}
		}
	}

}
