package dev.idempotency.autoconfigure.amqp;

import java.io.IOException;
import java.io.UncheckedIOException;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container;
import org.testcontainers.rabbitmq.RabbitMQContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * RabbitMQ from Testcontainers, the only class of these tests that touches it.
 */
final class RabbitContainers {

	private RabbitContainers() {
	}

	static boolean isDockerAvailable() {
		return DockerClientFactory.instance().isDockerAvailable();
	}

	static TestRabbit.Running start(String image) {
		RabbitMQContainer container = new RabbitMQContainer(
				DockerImageName.parse(image).asCompatibleSubstituteFor("rabbitmq"));
		container.start();
		return running(container);
	}

	static OwnRabbit startOwn(String image) {
		RabbitMQContainer container = new RabbitMQContainer(
				DockerImageName.parse(image).asCompatibleSubstituteFor("rabbitmq"));
		container.start();
		return new OwnRabbit(running(container), (arguments) -> rabbitmqctl(container, arguments));
	}

	private static TestRabbit.Running running(RabbitMQContainer container) {
		return new TestRabbit.Running("amqp://" + container.getAdminUsername() + ":" + container.getAdminPassword()
				+ "@" + container.getHost() + ":" + container.getAmqpPort(), container::stop);
	}

	private static String rabbitmqctl(RabbitMQContainer container, String... arguments) {
		String[] command = new String[arguments.length + 1];
		command[0] = "rabbitmqctl";
		System.arraycopy(arguments, 0, command, 1, arguments.length);
		try {
			Container.ExecResult result = container.execInContainer(command);
			if (result.getExitCode() != 0) {
				throw new IllegalStateException("rabbitmqctl " + String.join(" ", arguments) + " failed:\n"
						+ result.getStdout() + result.getStderr());
			}
			return result.getStdout();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running rabbitmqctl", ex);
		}
	}

}
