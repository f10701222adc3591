package dev.idempotency.test.redis;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Where the Redis of the tests comes from: the values of
 * {@value TestRedis#SOURCE_VARIABLE}.
 */
enum RedisSource {

	/**
	 * A running Redis at {@value TestRedis#URL_VARIABLE}.
	 */
	URL("a running Redis at " + TestRedis.URL_VARIABLE),

	/**
	 * A {@code redis:7} container that Testcontainers starts.
	 */
	TESTCONTAINERS("a " + TestRedis.IMAGE + " container from Testcontainers"),

	/**
	 * A {@code redis-server} from the {@code PATH}, started on a free port.
	 */
	BINARY("a redis-server from the PATH");

	private final String description;

	RedisSource(String description) {
		this.description = description;
	}

	/**
	 * Return the value that names this source in {@value TestRedis#SOURCE_VARIABLE}.
	 * @return the lower-case name
	 */
	String value() {
		return name().toLowerCase(Locale.ROOT);
	}

	String description() {
		return this.description;
	}

	static RedisSource of(String value) {
		for (RedisSource source : values()) {
			if (source.value().equals(value.trim().toLowerCase(Locale.ROOT))) {
				return source;
			}
		}
		throw new IllegalStateException(TestRedis.SOURCE_VARIABLE + "='" + value + "' is not one of "
				+ Arrays.stream(values()).map(RedisSource::value).collect(Collectors.joining(", ")));
	}

}
