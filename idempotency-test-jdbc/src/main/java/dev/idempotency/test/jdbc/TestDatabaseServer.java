package dev.idempotency.test.jdbc;

/**
 * A running database server that tests share: each test class takes an empty database of
 * its own on it, so that tests never see each other's tables.
 */
public interface TestDatabaseServer {

	/**
	 * Return the kind of server.
	 * @return the kind
	 */
	DatabaseKind kind();

	/**
	 * Create an empty database with a name of its own on this server.
	 * @return the database
	 */
	TestDatabase createDatabase();

	/**
	 * Say where the server comes from, for messages.
	 * @return a description, such as its URL
	 */
	String describe();

}
