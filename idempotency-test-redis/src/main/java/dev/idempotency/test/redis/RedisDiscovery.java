package dev.idempotency.test.redis;

import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Decides where the Redis of the tests comes from, from the environment and from what
 * this machine offers; each offer is looked at only when the decision needs it, since
 * asking Docker takes a while.
 */
final class RedisDiscovery {

	/**
	 * A class of Testcontainers, to tell whether it is on the classpath without loading
	 * any class that needs it.
	 */
	private static final String TESTCONTAINERS_CLASS = "org.testcontainers.DockerClientFactory";

	private static final String GET_ONE = "Either set " + TestRedis.URL_VARIABLE
			+ "=redis://host:port to use a running Redis; or run a Docker daemon, with "
			+ "org.testcontainers:testcontainers on the test classpath, so that Testcontainers starts "
			+ TestRedis.IMAGE + "; or install redis-server on the PATH "
			+ "(apt-get install redis-server, brew install redis) so that the tests start their own.";

	private final Function<String, @Nullable String> environment;

	private final BooleanSupplier testcontainersPresent;

	private final BooleanSupplier dockerAnswers;

	private final BooleanSupplier binaryFound;

	private @Nullable Boolean docker;

	RedisDiscovery(Function<String, @Nullable String> environment, BooleanSupplier testcontainersPresent,
			BooleanSupplier dockerAnswers, BooleanSupplier binaryFound) {
		this.environment = environment;
		this.testcontainersPresent = testcontainersPresent;
		this.dockerAnswers = dockerAnswers;
		this.binaryFound = binaryFound;
	}

	/**
	 * Look at this JVM's environment and this machine.
	 * @return the discovery
	 */
	static RedisDiscovery ofThisMachine() {
		return new RedisDiscovery(System::getenv,
				() -> ClassUtils.isPresent(TESTCONTAINERS_CLASS, RedisDiscovery.class.getClassLoader()),
				() -> RedisContainers.isDockerAvailable(), () -> RedisServerProcess.findBinary().isPresent());
	}

	/**
	 * Return the URL of a running Redis to use, if one is given.
	 * @return the URL, or {@code null}
	 */
	@Nullable String url() {
		String url = this.environment.apply(TestRedis.URL_VARIABLE);
		return (url != null && !url.isBlank()) ? url.trim() : null;
	}

	/**
	 * Decide where the Redis that the tests share comes from.
	 * @return the source
	 * @throws IllegalStateException if none can give one, with what to do about it
	 */
	RedisSource sharedSource() {
		RedisSource required = required();
		if (required != null) {
			check(required);
			return required;
		}
		if (url() != null) {
			return RedisSource.URL;
		}
		if (docker()) {
			return RedisSource.TESTCONTAINERS;
		}
		if (this.binaryFound.getAsBoolean()) {
			return RedisSource.BINARY;
		}
		throw new IllegalStateException("These tests need a real Redis, and none was found. " + GET_ONE);
	}

	/**
	 * Return the nodes of a running cluster to use, if they are given.
	 * @return some of its nodes, {@code host:port,host:port}, or {@code null}
	 */
	@Nullable String clusterNodes() {
		String nodes = this.environment.apply(TestRedis.CLUSTER_NODES_VARIABLE);
		return (nodes != null && !nodes.isBlank()) ? nodes.trim() : null;
	}

	/**
	 * Decide where the Redis Cluster that the tests share comes from: as the shared
	 * Redis, with {@value TestRedis#CLUSTER_NODES_VARIABLE} in place of the URL.
	 * @return the source, {@link RedisSource#URL} for the given nodes
	 * @throws IllegalStateException if none can give one, with what to do about it
	 */
	RedisSource clusterSource() {
		RedisSource required = required();
		if (required == RedisSource.URL) {
			if (clusterNodes() == null) {
				throw new IllegalStateException(TestRedis.SOURCE_VARIABLE + "=url demands running servers, but "
						+ TestRedis.CLUSTER_NODES_VARIABLE + " is not set: set it to some nodes of a running cluster "
						+ "(host:port,host:port), or unset " + TestRedis.SOURCE_VARIABLE
						+ " to let the tests start one.");
			}
			return required;
		}
		if (required != null) {
			check(required);
			return required;
		}
		if (clusterNodes() != null) {
			return RedisSource.URL;
		}
		if (docker()) {
			return RedisSource.TESTCONTAINERS;
		}
		if (this.binaryFound.getAsBoolean()) {
			return RedisSource.BINARY;
		}
		throw new IllegalStateException("These tests need a real Redis Cluster, and none was found. Either set "
				+ TestRedis.CLUSTER_NODES_VARIABLE + "=host:port,host:port to use a running one; or run a Docker "
				+ "daemon on this machine, with org.testcontainers:testcontainers on the test classpath, so that the "
				+ "tests start " + TestRedis.IMAGE + " containers; or install redis-server and redis-cli on the PATH "
				+ "(apt-get install redis-server, brew install redis).");
	}

	/**
	 * Decide where a Redis server that a test stops, kills and restarts comes from: a
	 * given URL cannot be one, so the binary is preferred, Docker the fallback.
	 * @return {@link RedisSource#BINARY} or {@link RedisSource#TESTCONTAINERS}
	 * @throws IllegalStateException if none can give one, with what to do about it
	 */
	RedisSource privateSource() {
		RedisSource required = required();
		if (required == RedisSource.TESTCONTAINERS || required == RedisSource.BINARY) {
			check(required);
			return required;
		}
		if (this.binaryFound.getAsBoolean()) {
			return RedisSource.BINARY;
		}
		if (docker()) {
			return RedisSource.TESTCONTAINERS;
		}
		throw new IllegalStateException("This test needs a Redis server of its own, to stop, kill or restart, and "
				+ "none can be started. Install redis-server on the PATH (apt-get install redis-server, brew install "
				+ "redis), or run a Docker daemon on this machine, with org.testcontainers:testcontainers on the test "
				+ "classpath.");
	}

	private @Nullable RedisSource required() {
		String value = this.environment.apply(TestRedis.SOURCE_VARIABLE);
		return (value != null && !value.isBlank()) ? RedisSource.of(value) : null;
	}

	private void check(RedisSource required) {
		String demanded = TestRedis.SOURCE_VARIABLE + "=" + required.value() + " demands " + required.description()
				+ ", but ";
		switch (required) {
			case URL -> {
				if (url() == null) {
					throw new IllegalStateException(demanded + TestRedis.URL_VARIABLE + " is not set.");
				}
			}
			case TESTCONTAINERS -> {
				if (!this.testcontainersPresent.getAsBoolean()) {
					throw new IllegalStateException(demanded + "Testcontainers is not on the test classpath: add "
							+ "org.testcontainers:testcontainers as a test dependency.");
				}
				if (!docker()) {
					throw new IllegalStateException(demanded + "no Docker daemon answers (DOCKER_HOST="
							+ this.environment.apply("DOCKER_HOST") + "): start one, or unset "
							+ TestRedis.SOURCE_VARIABLE + " to let the tests find another Redis.");
				}
			}
			case BINARY -> {
				if (!this.binaryFound.getAsBoolean()) {
					throw new IllegalStateException(demanded + "there is no redis-server on the PATH: install one "
							+ "(apt-get install redis-server, brew install redis).");
				}
			}
		}
	}

	private boolean docker() {
		if (this.docker == null) {
			this.docker = this.testcontainersPresent.getAsBoolean() && this.dockerAnswers.getAsBoolean();
		}
		return this.docker;
	}

}
