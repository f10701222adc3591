package dev.idempotency.test.jdbc;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * The real database servers that tests run against, one of each kind per test JVM, found
 * the first time it is asked for, in this order:
 * <ol>
 * <li>the kind's environment variable ({@link DatabaseKind#urlVariable()}), the JDBC URL
 * of a running server, its user and password as parameters;</li>
 * <li>a container from Testcontainers ({@code postgres:16}, {@code mariadb:11}) when
 * {@code org.testcontainers:testcontainers} is on the test classpath and a Docker daemon
 * answers;</li>
 * <li>a server started from the machine's binaries ({@code initdb} and {@code postgres}
 * on the {@code PATH} or in the newest {@code /usr/lib/postgresql/VERSION/bin};
 * {@code mariadb-install-db} and {@code mariadbd} on the {@code PATH} or in
 * {@code /usr/bin} and {@code /usr/sbin}), in a temporary directory of its own, on a free
 * port of 127.0.0.1. A JVM running as root runs it as {@code postgres} (PostgreSQL) or
 * {@code mysql} (MariaDB), else {@code nobody}, giving that user the directory, through
 * {@code setpriv} (PostgreSQL refuses to run as root) or {@code mariadbd --user}. It is
 * stopped and its directory deleted when the JVM exits, or, by a watchdog process, a
 * second or two after the JVM is killed.</li>
 * </ol>
 * The environment variable {@code IDEMPOTENCY_TEST_JDBC} ({@code url},
 * {@code testcontainers} or {@code binary}) demands one source and fails rather than fall
 * back. When none is available, {@link #get(DatabaseKind)} fails with a message saying
 * how to get one, and so does every test that needs it: such tests are never skipped.
 * Each test class takes an empty database of its own with
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
			server = locate(kind, DatabaseDiscovery.ofThisMachine());
			System.err.println("Tests use " + server.describe());
			servers.put(kind, server);
		}
		return server;
	}

	/**
	 * Start a server of a kind that only the calling test uses, to crash and restart it
	 * ({@link PrivateDatabaseServer#restart()}); the test closes it when done, or it is
	 * stopped when the JVM exits. Only the machine's binaries give one, as for the shared
	 * server (see above), whatever the shared server comes from.
	 * @param kind the kind of server
	 * @return the running server
	 * @throws IllegalStateException if there are no binaries of the kind,
	 * {@code IDEMPOTENCY_TEST_JDBC} demands another source, or it does not start
	 */
	public static PrivateDatabaseServer startPrivateServer(DatabaseKind kind) {
		DatabaseDiscovery.ofThisMachine().privateSource(kind);
		return ServerProcess.start(binaries(kind));
	}

	private static TestDatabaseServer locate(DatabaseKind kind, DatabaseDiscovery discovery) {
		return switch (discovery.sharedSource(kind)) {
			case URL -> new UrlServer(kind, Objects.requireNonNull(discovery.url(kind)));
			case TESTCONTAINERS -> startContainer(kind);
			case BINARY -> ServerProcess.start(binaries(kind));
		};
	}

	// A daemon that answers may still be unable to start the container (no image and no
	// registry): say which switch to flip
	private static TestDatabaseServer startContainer(DatabaseKind kind) {
		try {
			return DatabaseContainers.start(kind);
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("These tests use " + kind.label() + " from Testcontainers, since a Docker "
					+ "daemon answers, but the " + kind.image() + " container did not start: " + ex.getMessage()
					+ ". Fix the daemon, or set " + DatabaseDiscovery.SOURCE_VARIABLE + "=binary to start a server "
					+ "from the machine's binaries, or " + kind.urlVariable() + " to use a running server.", ex);
		}
	}

	private static ServerBinaries binaries(DatabaseKind kind) {
		return ServerBinaries.find(kind)
			.orElseThrow(() -> new IllegalStateException(
					"No " + kind.label() + " binaries found: install them (" + ServerBinaries.install(kind) + ")"));
	}

}
