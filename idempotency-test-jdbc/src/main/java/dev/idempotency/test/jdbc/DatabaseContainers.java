package dev.idempotency.test.jdbc;

import java.time.Duration;
import java.util.List;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Database servers from Testcontainers, the only class that touches it, an optional
 * dependency: it is loaded only once Testcontainers is known to be on the classpath. The
 * containers are set up as the servers from binaries are: no password, no {@code fsync}
 * or binary log, small buffers.
 */
final class DatabaseContainers {

	private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

	private DatabaseContainers() {
	}

	static boolean isDockerAvailable() {
		return DockerClientFactory.instance().isDockerAvailable();
	}

	/**
	 * Start a container of a kind and wait until it accepts connections.
	 * @param kind the kind of server
	 * @return the server, its container stopped when the JVM exits
	 */
	static TestDatabaseServer start(DatabaseKind kind) {
		GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(kind.image()))
			.withExposedPorts(kind.containerPort())
			.waitingFor(Wait.forListeningPort().withStartupTimeout(START_TIMEOUT));
		switch (kind) {
			case POSTGRESQL -> container.withEnv("POSTGRES_HOST_AUTH_METHOD", "trust")
				.withCommand("postgres", "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=200");
			case MARIADB -> container.withEnv("MARIADB_ALLOW_EMPTY_ROOT_PASSWORD", "1")
				.withCommand(List
					.of("--skip-log-bin", "--innodb-buffer-pool-size=32M", "--innodb-flush-log-at-trx-commit=2",
							"--max-connections=200")
					.toArray(String[]::new));
		}
		container.start();
		Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "database-container-shutdown"));
		String description = kind.label() + " container " + kind.image() + " on " + container.getHost() + ":"
				+ container.getMappedPort(kind.containerPort());
		String url = kind.adminUrl(container.getHost(), container.getMappedPort(kind.containerPort()));
		// Both images start a server on a socket only to set themselves up, then the real
		// one
		Connectable.await(description, url, () -> container.isRunning() ? null : "exited", container::getLogs);
		return new UrlServer(kind, url, description);
	}

}
