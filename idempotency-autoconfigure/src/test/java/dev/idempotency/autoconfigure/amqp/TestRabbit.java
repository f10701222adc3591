package dev.idempotency.autoconfigure.amqp;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

/**
 * The real RabbitMQ that tests run against, one per test JVM, found the first time it is
 * asked for, in this order: the {@value #URL_VARIABLE} environment variable
 * ({@code amqp://user:password@host:port[/vhost]}); a container from Testcontainers when
 * a Docker daemon answers (image {@value #DEFAULT_IMAGE}, or {@value #IMAGE_VARIABLE}); a
 * {@code rabbitmq-server} from the {@code PATH}, started on free ports. Otherwise it
 * fails, saying how to get one. {@value #SOURCE_VARIABLE} ({@code url},
 * {@code testcontainers} or {@code binary}) demands one and fails rather than fall back.
 * A broker the tests started is stopped when the JVM exits or is killed. Tests share it:
 * each uses queues of its own. Public, with {@link #get()} and {@link #properties()}, for
 * the tests of other packages (those of AOT) that need a broker too.
 */
public final class TestRabbit {

	static final String URL_VARIABLE = "IDEMPOTENCY_TEST_RABBITMQ_URL";

	static final String SOURCE_VARIABLE = "IDEMPOTENCY_TEST_RABBITMQ";

	static final String IMAGE_VARIABLE = "IDEMPOTENCY_TEST_RABBITMQ_IMAGE";

	static final String DEFAULT_IMAGE = "rabbitmq:4.1";

	private static @Nullable TestRabbit instance;

	private final URI uri;

	private final RabbitSource source;

	private TestRabbit(String url, RabbitSource source) {
		this.uri = URI.create(url);
		this.source = source;
		if (this.uri.getHost() == null || this.uri.getPort() < 0) {
			throw new IllegalStateException("'" + url + "' is not amqp://user:password@host:port[/vhost]");
		}
	}

	/**
	 * Return the broker of this JVM, found or started the first time.
	 * @return the broker
	 */
	public static synchronized TestRabbit get() {
		if (instance == null) {
			instance = locate(RabbitDiscovery.ofThisMachine());
			System.err.println("Tests use " + instance);
		}
		return instance;
	}

	/**
	 * Return the broker at the given URL, one that a test started for itself.
	 * @param url its AMQP URI
	 * @return the broker
	 */
	static TestRabbit at(String url) {
		return new TestRabbit(url, RabbitSource.URL);
	}

	static String image() {
		String image = System.getenv(IMAGE_VARIABLE);
		return (image != null && !image.isBlank()) ? image.trim() : DEFAULT_IMAGE;
	}

	private static TestRabbit locate(RabbitDiscovery discovery) {
		RabbitSource source = discovery.source();
		Running running = switch (source) {
			case URL -> new Running(given(discovery), null);
			case TESTCONTAINERS -> startContainer();
			case BINARY -> RabbitServerProcess.start();
		};
		if (running.stop() != null) {
			Runtime.getRuntime().addShutdownHook(new Thread(running.stop(), "test-rabbitmq-shutdown"));
		}
		return new TestRabbit(running.url(), source);
	}

	private static String given(RabbitDiscovery discovery) {
		String url = discovery.url();
		if (url == null) {
			throw new IllegalStateException(URL_VARIABLE + " is not set");
		}
		return url;
	}

	// A daemon that answers may still be unable to start the container (no image and no
	// registry): say which switch to flip
	private static Running startContainer() {
		try {
			return RabbitContainers.start(image());
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("These tests use RabbitMQ from Testcontainers, since a Docker daemon "
					+ "answers, but the " + image() + " container did not start: " + ex.getMessage() + ". Fix the "
					+ "daemon, or set " + SOURCE_VARIABLE + "=binary to use rabbitmq-server from the PATH, or "
					+ URL_VARIABLE + " to use a running RabbitMQ.", ex);
		}
	}

	String host() {
		return this.uri.getHost();
	}

	int port() {
		return this.uri.getPort();
	}

	String username() {
		return userInfo(0, "guest");
	}

	String password() {
		return userInfo(1, "guest");
	}

	String virtualHost() {
		String path = this.uri.getPath();
		return (path == null || path.length() <= 1) ? "/" : decode(path.substring(1));
	}

	/**
	 * Return the Spring Boot properties that connect to this broker.
	 * @return {@code name=value} pairs
	 */
	public String[] properties() {
		return new String[] { "spring.rabbitmq.host=" + host(), "spring.rabbitmq.port=" + port(),
				"spring.rabbitmq.username=" + username(), "spring.rabbitmq.password=" + password(),
				"spring.rabbitmq.virtual-host=" + virtualHost() };
	}

	@Override
	public String toString() {
		return this.source.description() + " at " + host() + ":" + port();
	}

	private String userInfo(int index, String fallback) {
		String userInfo = this.uri.getRawUserInfo();
		if (userInfo == null) {
			return fallback;
		}
		String[] parts = userInfo.split(":", 2);
		return (index < parts.length) ? decode(parts[index]) : fallback;
	}

	private static String decode(String value) {
		return URLDecoder.decode(value, StandardCharsets.UTF_8);
	}

	/**
	 * A broker to connect to, and how to stop it if the tests started it.
	 *
	 * @param url its AMQP URI
	 * @param stop stops it, or {@code null} if it was given
	 */
	record Running(String url, @Nullable Runnable stop) {

	}

}
