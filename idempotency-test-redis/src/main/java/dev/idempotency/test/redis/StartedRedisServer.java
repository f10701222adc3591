package dev.idempotency.test.redis;

/**
 * A server that this JVM started, beside which {@code redis-cli} can run: from the
 * {@code PATH} next to a {@code redis-server} process, inside the container of a
 * containerised one.
 */
interface StartedRedisServer extends RedisServer {

	/**
	 * Run {@code redis-cli} beside the server and wait for it to finish.
	 * @param arguments its arguments
	 * @return what it printed
	 * @throws IllegalStateException if it cannot be run, or exits with another status
	 * than 0
	 */
	String redisCli(String... arguments);

}
