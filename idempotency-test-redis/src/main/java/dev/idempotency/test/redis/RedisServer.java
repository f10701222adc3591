package dev.idempotency.test.redis;

/**
 * A Redis server that one test started for itself and controls: it can be stopped,
 * killed, frozen and started again on the same port, for tests of an unreachable or
 * hanging store.
 * <p>
 * Close it when done; a server still running when the JVM exits is stopped then.
 *
 * @see TestRedis#startPrivateServer()
 */
public interface RedisServer extends AutoCloseable {

	/**
	 * Return the host the server listens on.
	 * @return the host
	 */
	String host();

	/**
	 * Return the port the server listens on, which stays the same across restarts.
	 * @return the port
	 */
	int port();

	/**
	 * Return a {@code redis://} URL of the server.
	 * @return the URL
	 */
	default String url() {
		return "redis://" + host() + ":" + port();
	}

	/**
	 * Return whether the server is running.
	 * @return whether it runs
	 */
	boolean isRunning();

	/**
	 * Start the server again on the same port, with no data, and wait until it answers
	 * {@code PING}. Does nothing if it is running.
	 * @throws IllegalStateException if it does not answer in time
	 */
	void restart();

	/**
	 * Stop the server gracefully, as an operator would.
	 */
	void stop();

	/**
	 * Kill the server abruptly ({@code SIGKILL}), as a crash would.
	 */
	void kill();

	/**
	 * Freeze the server: connections stay open and new ones are accepted by the kernel,
	 * but nothing is answered until {@link #thaw()}, as with a server that hangs or a
	 * network that drops replies.
	 * @throws IllegalStateException if the server is not running
	 */
	void freeze();

	/**
	 * Let a frozen server go on, answering what it was sent meanwhile.
	 * @throws IllegalStateException if the server is not running
	 */
	void thaw();

	/**
	 * Stop the server and free what it used.
	 */
	@Override
	void close();

}
