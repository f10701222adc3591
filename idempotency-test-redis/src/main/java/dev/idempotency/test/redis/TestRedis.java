package dev.idempotency.test.redis;

import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * The real Redis that tests run against, one per test JVM, found the first time it is
 * asked for, in this order:
 * <ol>
 * <li>the {@value #URL_VARIABLE} environment variable
 * ({@code redis://[:password@]host:port[/database]});</li>
 * <li>a {@value #IMAGE} container from Testcontainers, when Testcontainers is on the test
 * classpath and a Docker daemon answers;</li>
 * <li>a {@code redis-server} from the {@code PATH}, started on a free port.</li>
 * </ol>
 * When none is available, {@link #get()} fails with a message saying how to get one, and
 * so does every test that needs Redis: such tests are never skipped. The
 * {@value #SOURCE_VARIABLE} environment variable ({@code url}, {@code testcontainers} or
 * {@code binary}) demands one of them and fails rather than fall back to another: a build
 * that must prove the tests pass on Testcontainers sets it to {@code testcontainers}. A
 * Redis that the tests started is stopped when the JVM exits.
 * <p>
 * Tests share the instance, so they must use keys of their own (random ones). A test that
 * stops, kills or restarts a server starts one of its own with
 * {@link #startPrivateServer()}.
 * <p>
 * With Spring Boot, point the application at it from the test class: <pre class="code">
 * &#064;DynamicPropertySource
 * static void redis(DynamicPropertyRegistry registry) {
 *     registry.add("spring.data.redis.url", () -&gt; TestRedis.get().url());
 * }
 * </pre>
 */
public final class TestRedis {

	/**
	 * Environment variable with the URL of a running Redis to test against.
	 */
	public static final String URL_VARIABLE = "IDEMPOTENCY_TEST_REDIS_URL";

	/**
	 * Environment variable with some nodes of a running Redis Cluster to test against,
	 * {@code host:port,host:port}.
	 */
	public static final String CLUSTER_NODES_VARIABLE = "IDEMPOTENCY_TEST_REDIS_CLUSTER_NODES";

	/**
	 * Environment variable that demands where Redis comes from: {@code url},
	 * {@code testcontainers} or {@code binary}. Unset, the first that is available is
	 * used.
	 */
	public static final String SOURCE_VARIABLE = "IDEMPOTENCY_TEST_REDIS";

	/**
	 * The image of every Redis container the tests start.
	 */
	public static final String IMAGE = "redis:7";

	private final RedisURI uri;

	private final String url;

	private final RedisSource source;

	private final @Nullable Runnable stop;

	private @Nullable LettuceConnectionFactory connectionFactory;

	TestRedis(String url, RedisSource source, @Nullable Runnable stop) {
		this.uri = RedisURI.create(url);
		this.url = url;
		this.source = source;
		this.stop = stop;
	}

	/**
	 * Return the Redis of this test JVM, finding or starting it on first use.
	 * @return the Redis
	 * @throws IllegalStateException if no Redis can be found or started
	 */
	public static TestRedis get() {
		return TestRedisLocator.shared();
	}

	/**
	 * Start a separate Redis server that only the caller uses, for tests that stop, kill
	 * or restart it: a {@code redis-server} from the {@code PATH} or, without one, a
	 * container on this machine's Docker daemon ({@value #SOURCE_VARIABLE} demands
	 * either). The caller closes it.
	 * @return the running server
	 * @throws IllegalStateException if no server can be started
	 */
	public static RedisServer startPrivateServer() {
		return startPrivateServer(RedisDiscovery.ofThisMachine());
	}

	/**
	 * Start a primary and replicas of it ({@code replicaof}) that only the caller uses,
	 * from the same source as {@link #startPrivateServer()}, and wait until the replicas
	 * are in sync. The caller closes it.
	 * @param replicas how many replicas
	 * @return the running primary and replicas
	 * @throws IllegalArgumentException if {@code replicas} is not positive
	 * @throws IllegalStateException if the servers cannot be started or the replicas do
	 * not get in sync
	 */
	public static RedisReplicaSet startReplicaSet(int replicas) {
		Assert.isTrue(replicas > 0, "'replicas' must be positive, but was " + replicas);
		return StartedReplicaSet.start(RedisLauncher.of(RedisDiscovery.ofThisMachine()), replicas);
	}

	/**
	 * Return the Redis Cluster of this test JVM, finding or starting it on first use, in
	 * the order of {@link TestRedis}: the nodes of a running cluster given by
	 * {@value #CLUSTER_NODES_VARIABLE}; else three primaries and three replicas started
	 * as {@value #IMAGE} containers when a Docker daemon on this machine answers; else as
	 * {@code redis-server} processes ({@code redis-cli} joins them into a cluster).
	 * {@value #SOURCE_VARIABLE} demands one of them as for {@link #get()} ({@code url}
	 * demands {@value #CLUSTER_NODES_VARIABLE}). A cluster that the tests started is
	 * stopped when the JVM exits.
	 * <p>
	 * Tests share it, so they must use keys of their own and never stop, kill or freeze
	 * its nodes (a test that does starts a cluster of its own with
	 * {@link #startCluster()}); its {@link RedisCluster#close()} does nothing.
	 * @return the cluster
	 * @throws IllegalStateException if no cluster can be found or started
	 */
	public static RedisCluster cluster() {
		return TestRedisLocator.sharedCluster();
	}

	/**
	 * Start a Redis Cluster that only the caller uses, for tests that stop, kill or
	 * freeze its nodes: three primaries with one replica each, from the same source as
	 * {@link #startPrivateServer()}, each node in a directory of its own, on a free port
	 * whose cluster bus port (10000 higher) is free too. Nodes notice a failed one within
	 * about a second ({@code cluster-node-timeout} 1000 ms) and a replica takes over
	 * however far behind it is ({@code cluster-replica-validity-factor} 0). Returns once
	 * every node says {@code cluster_state:ok}, all 16384 slots are served and every
	 * replica is linked to its primary. The caller closes it.
	 * @return the running cluster
	 * @throws IllegalStateException if the cluster cannot be started
	 */
	public static RedisCluster startCluster() {
		return ClusterFormation.start(RedisLauncher.of(RedisDiscovery.ofThisMachine()), true);
	}

	/**
	 * Start a primary, its replica and three sentinels watching them (quorum 2,
	 * {@code down-after-milliseconds} 1000, {@code failover-timeout} 5000) that only the
	 * caller uses, from the same source as {@link #startPrivateServer()}; each sentinel
	 * is a {@code redis-server --sentinel} with a configuration file of its own. Returns
	 * once the replica is linked and every sentinel knows it and the two other sentinels.
	 * The caller closes it.
	 * @return the running primary, replica and sentinels
	 * @throws IllegalStateException if they cannot be started
	 */
	public static RedisSentinels startSentinels() {
		return StartedSentinels.start(RedisLauncher.of(RedisDiscovery.ofThisMachine()));
	}

	/**
	 * Create a started connection factory with timeouts short enough for tests, which
	 * rejects commands at once while disconnected instead of queueing them. The caller
	 * destroys it.
	 * @param host the host
	 * @param port the port
	 * @return the started factory
	 */
	public static LettuceConnectionFactory connectionFactory(String host, int port) {
		return connectionFactory(RedisURI.create(host, port));
	}

	/**
	 * Return the host of this Redis.
	 * @return the host
	 */
	public String host() {
		return this.uri.getHost();
	}

	/**
	 * Return the port of this Redis.
	 * @return the port
	 */
	public int port() {
		return this.uri.getPort();
	}

	/**
	 * Return the URL of this Redis, as {@code spring.data.redis.url} takes it.
	 * @return the URL
	 */
	public String url() {
		return this.url;
	}

	/**
	 * Return whether this Redis was started by this JVM rather than given by
	 * {@value #URL_VARIABLE}.
	 * @return whether the JVM started it
	 */
	public boolean isStartedByTests() {
		return this.stop != null;
	}

	/**
	 * Return a started connection factory for this Redis, shared by the whole test JVM.
	 * Do not destroy it.
	 * @return the shared factory
	 */
	public synchronized LettuceConnectionFactory connectionFactory() {
		if (this.connectionFactory == null) {
			this.connectionFactory = newConnectionFactory();
		}
		return this.connectionFactory;
	}

	/**
	 * Create a started connection factory for this Redis that the caller destroys.
	 * @return the started factory
	 */
	public LettuceConnectionFactory newConnectionFactory() {
		return connectionFactory(this.uri);
	}

	@Override
	public String toString() {
		return StringUtils.capitalize(this.source.description()) + " at " + host() + ":" + port();
	}

	RedisSource source() {
		return this.source;
	}

	static RedisServer startPrivateServer(RedisDiscovery discovery) {
		return RedisLauncher.of(discovery).start(RedisServerSettings.STANDARD);
	}

	private static LettuceConnectionFactory connectionFactory(RedisURI uri) {
		return TestConnectionFactories.standalone(uri);
	}

	synchronized void shutdown() {
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
		if (this.stop != null) {
			this.stop.run();
		}
	}

}
