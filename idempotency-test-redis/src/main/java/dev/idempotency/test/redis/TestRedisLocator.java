package dev.idempotency.test.redis;

import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import static dev.idempotency.test.redis.TestRedis.CLUSTER_NODES_VARIABLE;
import static dev.idempotency.test.redis.TestRedis.IMAGE;
import static dev.idempotency.test.redis.TestRedis.SOURCE_VARIABLE;
import static dev.idempotency.test.redis.TestRedis.URL_VARIABLE;

/**
 * Finds or starts, once per test JVM, the Redis and the Redis Cluster that tests share,
 * from the source that {@link RedisDiscovery} picks, says what to change when that source
 * fails, and stops what it started when the JVM exits.
 */
final class TestRedisLocator {

	private static @Nullable TestRedis instance;

	private static @Nullable StartedCluster cluster;

	private TestRedisLocator() {
	}

	static synchronized TestRedis shared() {
		if (instance == null) {
			instance = locate(RedisDiscovery.ofThisMachine());
			System.err.println("Tests use " + instance);
			Runtime.getRuntime().addShutdownHook(new Thread(instance::shutdown, "test-redis-shutdown"));
		}
		return instance;
	}

	static synchronized RedisCluster sharedCluster() {
		if (cluster == null) {
			long started = System.nanoTime();
			StartedCluster located = locateCluster(RedisDiscovery.ofThisMachine());
			System.err.println("Tests use " + located + ", ready in "
					+ Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
			Runtime.getRuntime().addShutdownHook(new Thread(located::shutdown, "test-redis-cluster-shutdown"));
			cluster = located;
		}
		return cluster;
	}

	static TestRedis locate(RedisDiscovery discovery) {
		// A lambda rather than a method reference, so that Testcontainers' classes are
		// loaded only when a container is started.
		return locate(discovery, () -> RedisContainers.startShared());
	}

	static TestRedis locate(RedisDiscovery discovery, Supplier<RunningRedis> containers) {
		RedisSource source = discovery.sharedSource();
		return switch (source) {
			case URL -> {
				String url = discovery.url();
				if (url == null) {
					throw new IllegalStateException(URL_VARIABLE + " is not set");
				}
				yield new TestRedis(url, source, null);
			}
			case TESTCONTAINERS -> started(source, startContainer(containers));
			case BINARY -> {
				RedisServer server = RedisServerProcess.start();
				yield started(source, new RunningRedis(server.host(), server.port(), server::close));
			}
		};
	}

	static StartedCluster locateCluster(RedisDiscovery discovery) {
		RedisSource source = discovery.clusterSource();
		if (source == RedisSource.URL) {
			String nodes = discovery.clusterNodes();
			if (nodes == null) {
				throw new IllegalStateException(CLUSTER_NODES_VARIABLE + " is not set");
			}
			return ClusterFormation.given(nodes, CLUSTER_NODES_VARIABLE);
		}
		return ClusterFormation.start(RedisLauncher.of(source), false);
	}

	/**
	 * Start the shared container. A daemon that answers a ping may still be unable to
	 * start one (no image and no registry, no rights to create containers), and
	 * Testcontainers then says only that the container failed: say which switch to flip.
	 */
	private static RunningRedis startContainer(Supplier<RunningRedis> containers) {
		try {
			return containers.get();
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("These tests use Redis from Testcontainers, since a Docker daemon "
					+ "answers, but the " + IMAGE + " container did not start: " + ex.getMessage() + ". Fix the "
					+ "daemon, or set " + SOURCE_VARIABLE + "=binary to use redis-server from the PATH, or "
					+ URL_VARIABLE + "=redis://host:port to use a running Redis.", ex);
		}
	}

	private static TestRedis started(RedisSource source, RunningRedis redis) {
		return new TestRedis("redis://" + redis.host() + ":" + redis.port(), source, redis.stop());
	}

}
