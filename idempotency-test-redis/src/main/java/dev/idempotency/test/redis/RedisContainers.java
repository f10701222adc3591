package dev.idempotency.test.redis;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.containers.wait.strategy.WaitStrategy;
import org.testcontainers.utility.DockerImageName;

/**
 * Redis from Testcontainers. With {@link RedisServerContainer}, the only classes that
 * touch Testcontainers, which is an optional dependency: they are loaded only once
 * Testcontainers is known to be on the classpath.
 */
final class RedisContainers {

	static final DockerImageName IMAGE = DockerImageName.parse(TestRedis.IMAGE);

	private static final int REDIS_PORT = 6379;

	private RedisContainers() {
	}

	static boolean isDockerAvailable() {
		return DockerClientFactory.instance().isDockerAvailable();
	}

	/**
	 * Start a container whose port 6379 is published on a free port of the Docker host.
	 * @return the running container
	 */
	static RunningRedis startShared() {
		GenericContainer<?> container = new GenericContainer<>(IMAGE).withExposedPorts(REDIS_PORT)
			.withCommand(command(REDIS_PORT, "*"))
			.waitingFor(ready());
		container.start();
		String host = container.getHost();
		int port = container.getMappedPort(REDIS_PORT);
		try {
			RedisPing.await("Redis container " + container.getContainerId(), host, port,
					() -> container.isRunning() ? null : "exited", container::getLogs);
		}
		catch (IllegalStateException ex) {
			container.stop();
			throw ex;
		}
		return new RunningRedis(host, port, container::stop);
	}

	/**
	 * Start a container that a test stops, kills and restarts.
	 * @return the running server
	 */
	static RedisServer startPrivate() {
		return RedisServerContainer.start();
	}

	/**
	 * A {@code redis-server} command line that keeps nothing on disk and accepts clients
	 * from outside the container.
	 */
	static String[] command(int port, String bind) {
		return new String[] { "redis-server", "--port", Integer.toString(port), "--bind", bind, "--protected-mode",
				"no", "--save", "", "--appendonly", "no" };
	}

	static WaitStrategy ready() {
		return Wait.forLogMessage(".*Ready to accept connections.*\\n", 1).withStartupTimeout(RedisPing.START_TIMEOUT);
	}

}
