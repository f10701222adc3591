package dev.idempotency.test.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * Helpers for the sets of servers that one test starts together.
 */
final class RedisServers {

	private RedisServers() {
	}

	/**
	 * Delete a server's directory and what it holds. Kept apart from the classes of the
	 * servers, whose static initialisers register shutdown hooks: a server closed by a
	 * shutdown hook must not load one of them, since a hook cannot be added then.
	 * @param directory the directory
	 */
	static void deleteDirectory(Path directory) {
		try (Stream<Path> paths = Files.walk(directory)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// A leftover temporary directory is not worth failing a test run for.
		}
	}

	/**
	 * Close every server, even when one fails to close.
	 * @param servers the servers
	 * @param failure a failure that made the caller close them, to which any failure to
	 * close one is added; or {@code null}
	 * @throws RuntimeException the first failure to close one, when there was no failure
	 * before
	 */
	static void closeAll(List<? extends RedisServer> servers, @Nullable RuntimeException failure) {
		RuntimeException first = null;
		for (RedisServer server : servers) {
			try {
				server.close();
			}
			catch (RuntimeException ex) {
				if (failure != null) {
					failure.addSuppressed(ex);
				}
				else if (first == null) {
					first = ex;
				}
				else {
					first.addSuppressed(ex);
				}
			}
		}
		if (first != null) {
			throw first;
		}
	}

}
