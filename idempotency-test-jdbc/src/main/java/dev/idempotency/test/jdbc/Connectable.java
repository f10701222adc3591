package dev.idempotency.test.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

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
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		SQLException last = null;
		while (System.nanoTime() < deadline) {
			String end = exited.get();
			if (end != null) {
				throw new IllegalStateException(what + " " + end + ":\n" + log.get());
			}
			try (Connection connection = DriverManager.getConnection(url)) {
				return;
			}
			catch (SQLException ex) {
				last = ex;
			}
			pause(what);
		}
		throw new IllegalStateException(what + " did not accept connections within " + START_TIMEOUT + " ("
				+ ((last != null) ? last.getMessage() : "") + "):\n" + log.get(), last);
	}

	private static void pause(String what) {
		try {
			Thread.sleep(INTERVAL.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for " + what, ex);
		}
	}

}
