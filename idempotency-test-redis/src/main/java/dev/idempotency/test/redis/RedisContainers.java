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
			.withCommand(
					RedisServerSettings.STANDARD.command("redis-server", "*", REDIS_PORT, null).toArray(String[]::new))
			.waitingFor(ready(RedisServerSettings.STANDARD));
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
	 * @param settings what it runs as
	 * @return the running server
	 */
	static StartedRedisServer startPrivate(RedisServerSettings settings) {
		return RedisServerContainer.start(settings);
	}

	// A sentinel of Redis 7.0 never says that it is ready, only who it is.
	static WaitStrategy ready(RedisServerSettings settings) {
		String message = settings.isSentinel() ? ".*Sentinel ID is.*\\n" : ".*Ready to accept connections.*\\n";
		return Wait.forLogMessage(message, 1).withStartupTimeout(RedisPing.START_TIMEOUT);
	}

}
