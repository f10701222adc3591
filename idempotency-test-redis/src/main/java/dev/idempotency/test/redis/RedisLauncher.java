package dev.idempotency.test.redis;

/**
 * Starts the servers of one test: {@code redis-server} processes or containers, as
 * {@link RedisDiscovery#privateSource()} decides.
 */
@FunctionalInterface
interface RedisLauncher {

	/**
	 * Start a server.
	 * @param settings what it runs as
	 * @return the running server, which the caller closes
	 * @throws IllegalStateException if it does not start
	 */
	StartedRedisServer start(RedisServerSettings settings);

	static RedisLauncher of(RedisDiscovery discovery) {
		return of(discovery.privateSource());
	}

	/**
	 * Return the launcher of processes or of containers.
	 * @param source {@link RedisSource#TESTCONTAINERS} for containers, anything else for
	 * processes
	 * @return the launcher
	 */
	static RedisLauncher of(RedisSource source) {
		return switch (source) {
			// A lambda rather than a method reference, so that Testcontainers' classes
			// are loaded only when a container is started.
			case TESTCONTAINERS -> (settings) -> RedisContainers.startPrivate(settings);
			case BINARY, URL -> RedisServerProcess::start;
		};
	}

}
