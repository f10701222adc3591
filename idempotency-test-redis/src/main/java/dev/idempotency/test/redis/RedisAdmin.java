package dev.idempotency.test.redis;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.lettuce.core.sentinel.api.sync.RedisSentinelCommands;
import org.jspecify.annotations.Nullable;

/**
 * Asks servers of the tests about their state, on one connection per server that gives up
 * quickly, so that a server that was killed or frozen fails the question rather than hang
 * it. A connection that failed (the server was killed, restarted or frozen meanwhile) is
 * dropped, and the question asked once more on a new one.
 */
final class RedisAdmin implements AutoCloseable {

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	private final RedisClient client;

	private final Map<String, StatefulRedisConnection<String, String>> connections = new ConcurrentHashMap<>();

	private final Map<String, StatefulRedisSentinelConnection<String, String>> sentinelConnections = new ConcurrentHashMap<>();

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
		return call(this.connections, server, this.client::connect, (connection) -> commands.apply(connection.sync()));
	}

	/**
	 * Send commands to a sentinel.
	 * @param <T> the answer
	 * @param sentinel the sentinel
	 * @param commands what to send
	 * @return the answer
	 */
	<T> T callSentinel(RedisServer sentinel, Function<RedisSentinelCommands<String, String>, T> commands) {
		return call(this.sentinelConnections, sentinel, this.client::connectSentinel,
				(connection) -> commands.apply(connection.sync()));
	}

	private <C extends StatefulConnection<String, String>, T> T call(Map<String, C> connections, RedisServer server,
			Function<RedisURI, C> connect, Function<C, T> commands) {
		String address = server.host() + ":" + server.port();
		C cached = connections.get(address);
		if (cached != null && cached.isOpen()) {
			try {
				return commands.apply(cached);
			}
			catch (RedisCommandExecutionException ex) {
				throw ex;
			}
			catch (RuntimeException ex) {
				// Asked again below, on a new connection
			}
		}
		drop(connections, address, cached);
		C connection = connect
			.apply(RedisURI.builder().withHost(server.host()).withPort(server.port()).withTimeout(TIMEOUT).build());
		drop(connections, address, connections.put(address, connection));
		try {
			return commands.apply(connection);
		}
		catch (RedisCommandExecutionException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			drop(connections, address, connection);
			throw ex;
		}
	}

	private static <C extends StatefulConnection<String, String>> void drop(Map<String, C> connections, String address,
			@Nullable C connection) {
		if (connection != null) {
			connections.remove(address, connection);
			connection.closeAsync();
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
		this.connections.values().forEach(StatefulConnection::closeAsync);
		this.sentinelConnections.values().forEach(StatefulConnection::closeAsync);
		this.client.shutdown(Duration.ZERO, TIMEOUT);
	}

}
