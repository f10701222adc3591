package dev.idempotency.test.jdbc;

import java.sql.DriverManager;
import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.idempotency.test.process.Readiness;

/**
 * Waits until a server that was just started accepts connections, polling until a
 * deadline.
 */
final class Connectable {

	static final Duration START_TIMEOUT = Duration.ofSeconds(120);

	private static final Duration INTERVAL = Duration.ofMillis(100);

	private Connectable() {
	}

	/**
	 * Wait until a server accepts a connection to a URL.
	 * @param what the server, for messages
	 * @param url a URL of the server, with its user and password as parameters
	 * @param exited says why the server will never answer (it exited), or {@code null}
	 * while it may
	 * @param log returns the server's log, for a failure
	 * @throws IllegalStateException if the server exits or does not answer in time
	 */
	static void await(String what, String url, Supplier<@Nullable String> exited, Supplier<String> log) {
		Readiness.await(what, START_TIMEOUT, INTERVAL, () -> DriverManager.getConnection(url).close(), exited, log);
	}

}
