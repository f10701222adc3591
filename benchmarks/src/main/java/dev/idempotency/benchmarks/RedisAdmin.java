package dev.idempotency.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.ReturnType;

/**
 * The few administrative commands the harness needs, outside any measurement.
 */
final class RedisAdmin {

	private final RedisConnectionFactory connectionFactory;

	RedisAdmin(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	void flush() {
		run((connection) -> {
			connection.serverCommands().flushDb();
			return null;
		});
	}

	String info(String section, String name) {
		Properties info = run((connection) -> connection.serverCommands().info(section));
		String value = (info != null) ? info.getProperty(name) : null;
		return (value != null) ? value.trim() : "?";
	}

	/**
	 * Return the CPU time the server has used, system and user.
	 * @return the CPU time in nanoseconds
	 */
	long cpuNanos() {
		Properties info = run((connection) -> connection.serverCommands().info("cpu"));
		if (info == null) {
			return 0;
		}
		double seconds = Double.parseDouble(info.getProperty("used_cpu_sys", "0").trim())
				+ Double.parseDouble(info.getProperty("used_cpu_user", "0").trim());
		return (long) (seconds * 1e9);
	}

	long memoryUsage(byte[] key) {
		// Through EVAL: the connection's generic execute expects a bulk reply, not an
		// integer
		Long usage = run((connection) -> connection.scriptingCommands()
			.eval(ascii("return redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', '0')"), ReturnType.INTEGER, 1, key));
		return (usage != null) ? usage : -1;
	}

	long strlen(byte[] key) {
		Long length = run((connection) -> connection.stringCommands().strLen(key));
		return (length != null) ? length : -1;
	}

	byte @Nullable [] get(byte[] key) {
		return run((connection) -> connection.stringCommands().get(key));
	}

	String encoding(byte[] key) {
		Object encoding = run((connection) -> connection.execute("OBJECT", ascii("ENCODING"), key));
		return (encoding instanceof byte[] bytes) ? new String(bytes, StandardCharsets.US_ASCII) : "?";
	}

	private <T> @Nullable T run(Function<RedisConnection, @Nullable T> action) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return action.apply(connection);
		}
	}

	private static byte[] ascii(String value) {
		return value.getBytes(StandardCharsets.US_ASCII);
	}

}
