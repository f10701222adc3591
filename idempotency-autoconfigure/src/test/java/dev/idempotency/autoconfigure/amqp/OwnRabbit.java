package dev.idempotency.autoconfigure.amqp;

import java.util.function.Function;

/**
 * A RabbitMQ that one test class starts for itself, rather than share the one of
 * {@link TestRabbit}, because the test changes how the whole broker behaves (raises its
 * memory alarm): a container when the shared broker comes from Testcontainers, otherwise
 * a {@code rabbitmq-server} from the {@code PATH}. It runs {@code rabbitmqctl} against
 * the broker.
 */
final class OwnRabbit {

	private final TestRabbit.Running running;

	private final Function<String[], String> rabbitmqctl;

	OwnRabbit(TestRabbit.Running running, Function<String[], String> rabbitmqctl) {
		this.running = running;
		this.rabbitmqctl = rabbitmqctl;
	}

	static OwnRabbit start() {
		if (RabbitDiscovery.ofThisMachine().source() == RabbitSource.TESTCONTAINERS) {
			return RabbitContainers.startOwn(TestRabbit.image());
		}
		RabbitServerProcess server = RabbitServerProcess.start(ProcessHandle.current().pid());
		return new OwnRabbit(server.running(), server::rabbitmqctl);
	}

	/**
	 * Run {@code rabbitmqctl} against this broker.
	 * @param arguments the command and its arguments
	 * @return what it printed
	 */
	String rabbitmqctl(String... arguments) {
		return this.rabbitmqctl.apply(arguments);
	}

	/**
	 * Return the Spring Boot properties that connect to this broker.
	 * @return {@code name=value} pairs
	 */
	String[] properties() {
		return TestRabbit.at(this.running.url()).properties();
	}

	void stop() {
		Runnable stop = this.running.stop();
		if (stop != null) {
			stop.run();
		}
	}

}
