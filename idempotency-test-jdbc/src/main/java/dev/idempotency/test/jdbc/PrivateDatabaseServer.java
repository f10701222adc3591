package dev.idempotency.test.jdbc;

/**
 * A database server that one test started for itself, to crash and restart it, and that
 * it closes when done: see {@link TestDatabases#startPrivateServer(DatabaseKind)}.
 */
public interface PrivateDatabaseServer extends TestDatabaseServer, AutoCloseable {

	/**
	 * Stop the server at once, as a crash would (open connections break, transactions not
	 * committed are lost), then start it again on the same port and data, and wait until
	 * it accepts connections: committed data is kept, databases and their URLs stay
	 * valid.
	 * @throws IllegalStateException if it does not start again
	 */
	void restart();

	/**
	 * Stop the server at once and delete its data.
	 */
	@Override
	void close();

}
