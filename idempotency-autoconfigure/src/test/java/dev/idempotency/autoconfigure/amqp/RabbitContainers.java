package dev.idempotency.autoconfigure.amqp;

import org.testcontainers.DockerClientFactory;
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
		return new TestRabbit.Running("amqp://" + container.getAdminUsername() + ":" + container.getAdminPassword()
				+ "@" + container.getHost() + ":" + container.getAmqpPort(), container::stop);
	}

}
