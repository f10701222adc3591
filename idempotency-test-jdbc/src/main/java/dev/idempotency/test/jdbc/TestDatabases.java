package dev.idempotency.test.jdbc;

import java.util.EnumMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The real database servers that tests run against, one of each kind per test JVM, found
 * the first time it is asked for, in this order:
 * <ol>
 * <li>the kind's environment variable ({@link DatabaseKind#urlVariable()}), the JDBC URL
 * of a running server, its user and password as parameters;</li>
 * </ol>
 * When none is available, {@link #get(DatabaseKind)} fails with a message saying how to
 * get one, and so does every test that needs it: such tests are never skipped. Each test
 * class takes an empty database of its own with
 * {@link TestDatabaseServer#createDatabase()}.
 */
public final class TestDatabases {

	private static final Map<DatabaseKind, TestDatabaseServer> servers = new EnumMap<>(DatabaseKind.class);

	private TestDatabases() {
	}

	/**
	 * Return the PostgreSQL server of the tests.
	 * @return the server
	 */
	public static TestDatabaseServer postgres() {
		return get(DatabaseKind.POSTGRESQL);
	}

	/**
	 * Return the MariaDB server of the tests.
	 * @return the server
	 */
	public static TestDatabaseServer mariadb() {
		return get(DatabaseKind.MARIADB);
	}

	/**
	 * Return the server of a kind, found the first time it is asked for.
	 * @param kind the kind of server
	 * @return the server
	 * @throws IllegalStateException if none can be found, with what to do about it
	 */
	public static synchronized TestDatabaseServer get(DatabaseKind kind) {
		TestDatabaseServer server = servers.get(kind);
		if (server == null) {
			server = find(kind);
			servers.put(kind, server);
		}
		return server;
	}

	private static TestDatabaseServer find(DatabaseKind kind) {
		String url = url(kind);
		if (url != null) {
			return new UrlServer(kind, url);
		}
		throw new IllegalStateException("No " + kind.label() + " for the tests. Set " + kind.urlVariable()
				+ " to the JDBC URL of a running server, for example " + kind.exampleUrl() + ".");
	}

	private static @Nullable String url(DatabaseKind kind) {
		String url = System.getenv(kind.urlVariable());
		return (url != null && !url.isBlank()) ? url.trim() : null;
	}

}
