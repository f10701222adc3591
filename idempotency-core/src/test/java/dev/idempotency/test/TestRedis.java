package dev.idempotency.test;

import java.time.Duration;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The real Redis that tests run against, one per test JVM, found the first time it is
 * asked for:
 * <ol>
 * <li>the {@code IDEMPOTENCY_TEST_REDIS_URL} environment variable
 * ({@code redis://[:password@]host:port[/database]});</li>
 * <li>otherwise a {@code redis-server} from the {@code PATH}, started on a free port and
 * stopped when the JVM exits.</li>
 * </ol>
 * When neither is available, {@link #get()} fails, and so does every test that needs
 * Redis: such tests are never skipped. Testcontainers is not used, to keep Docker out of
 * the build.
 * <p>
 * Tests share the instance, so they must use keys of their own (random ones).
 */
public final class TestRedis {

	/**
	 * Environment variable with the URL of an existing Redis to test against.
	 */
	public static final String URL_VARIABLE = "IDEMPOTENCY_TEST_REDIS_URL";

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

	private static @Nullable TestRedis instance;

	private final RedisURI uri;

	private final @Nullable RedisServerProcess server;

	private @Nullable LettuceConnectionFactory connectionFactory;

	private TestRedis(RedisURI uri, @Nullable RedisServerProcess server) {
		this.uri = uri;
		this.server = server;
	}

	/**
	 * Return the Redis of this test JVM, finding or starting it on first use.
	 * @return the Redis
	 * @throws IllegalStateException if no Redis can be found or started
	 */
	public static synchronized TestRedis get() {
		if (instance == null) {
			instance = locate();
			Runtime.getRuntime().addShutdownHook(new Thread(instance::shutdown, "test-redis-shutdown"));
		}
		return instance;
	}

	/**
	 * Start a separate {@code redis-server} that only the caller uses, for tests that
	 * stop, kill or restart it. The caller closes it.
	 * @return the running server
	 * @throws IllegalStateException if there is no {@code redis-server} on the
	 * {@code PATH} or it does not start
	 */
	public static RedisServerProcess startPrivateServer() {
		return RedisServerProcess.start();
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
	 * Return whether this Redis was started by this JVM rather than given by
	 * {@value #URL_VARIABLE}.
	 * @return whether the JVM started it
	 */
	public boolean isStartedByTests() {
		return this.server != null;
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
		return "Redis at " + host() + ":" + port() + (isStartedByTests() ? " (started by the tests)" : "");
	}

	private static TestRedis locate() {
		String url = System.getenv(URL_VARIABLE);
		if (url != null && !url.isBlank()) {
			return new TestRedis(RedisURI.create(url.trim()), null);
		}
		if (RedisServerProcess.findBinary().isPresent()) {
			RedisServerProcess server = RedisServerProcess.start();
			return new TestRedis(RedisURI.create(server.host(), server.port()), server);
		}
		throw new IllegalStateException("These tests need a real Redis, and none was found. Either set " + URL_VARIABLE
				+ "=redis://host:port to use a running one, or install redis-server on the PATH "
				+ "(apt-get install redis-server, brew install redis) so that the tests start their own. "
				+ "Testcontainers is not supported.");
	}

	private static LettuceConnectionFactory connectionFactory(RedisURI uri) {
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(COMMAND_TIMEOUT)
			.clientOptions(ClientOptions.builder()
				.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
				.socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
				.build());
		if (uri.isSsl()) {
			client.useSsl();
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				LettuceConnectionFactory.createRedisConfiguration(uri), client.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private synchronized void shutdown() {
		if (this.connectionFactory != null) {
			this.connectionFactory.destroy();
		}
		if (this.server != null) {
			this.server.close();
		}
	}

}
