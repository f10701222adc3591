package dev.idempotency.test.redis;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Helpers for the sets of servers that one test starts together.
 */
final class RedisServers {

	private RedisServers() {
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
