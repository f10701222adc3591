package dev.idempotency.test.redis;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;

/**
 * Asks servers of the tests about their state, each time on a connection of its own that
 * gives up quickly, so that a server that was killed or frozen fails the question rather
 * than hang it.
 */
final class RedisAdmin implements AutoCloseable {

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	private final RedisClient client;

	RedisAdmin() {
		this.client = RedisClient.create();
		this.client.setOptions(ClientOptions.builder()
			.autoReconnect(false)
			.socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).build())
			.timeoutOptions(TimeoutOptions.enabled(TIMEOUT))
			.build());
	}

	/**
	 * Send commands to a server.
	 * @param <T> the answer
	 * @param server the server
	 * @param commands what to send
	 * @return the answer
	 */
	<T> T call(RedisServer server, Function<RedisCommands<String, String>, T> commands) {
		try (StatefulRedisConnection<String, String> connection = this.client.connect(uri(server))) {
			return commands.apply(connection.sync());
		}
	}

	/**
	 * Send commands to a sentinel.
	 * @param <T> the answer
	 * @param sentinel the sentinel
	 * @param commands what to send
	 * @return the answer
	 */
	<T> T callSentinel(RedisServer sentinel, Function<RedisSentinelCommands<String, String>, T> commands) {
		try (StatefulRedisSentinelConnection<String, String> connection = this.client.connectSentinel(uri(sentinel))) {
			return commands.apply(connection.sync());
		}
	}

	/**
	 * Return a section of a server's {@code INFO}.
	 * @param server the server
	 * @param section the section
	 * @return its fields by name
	 */
	Map<String, String> info(RedisServer server, String section) {
		return parse(call(server, (commands) -> commands.info(section)));
	}

	/**
	 * Parse the {@code name:value} lines of {@code INFO} or {@code CLUSTER INFO}.
	 * @param info the reply
	 * @return the fields by name, in their order
	 */
	static Map<String, String> parse(String info) {
		Map<String, String> fields = new LinkedHashMap<>();
		for (String line : info.split("\r?\n")) {
			int colon = line.indexOf(':');
			if (!line.startsWith("#") && colon > 0) {
				fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
			}
		}
		return fields;
	}

	@Override
	public void close() {
		this.client.shutdown(Duration.ZERO, TIMEOUT);
	}

	private static RedisURI uri(RedisServer server) {
		return RedisURI.builder().withHost(server.host()).withPort(server.port()).withTimeout(TIMEOUT).build();
	}

}
