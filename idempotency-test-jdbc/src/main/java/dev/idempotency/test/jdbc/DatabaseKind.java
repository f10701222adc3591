package dev.idempotency.test.jdbc;

/**
 * The databases the tests run on.
 */
public enum DatabaseKind {

	/**
	 * PostgreSQL.
	 */
	POSTGRESQL("PostgreSQL", "IDEMPOTENCY_TEST_POSTGRES_URL", "postgresql", 5432, "postgres", "postgres",
			"postgres:16"),

	/**
	 * MariaDB, whose server also stands for MySQL.
	 */
	MARIADB("MariaDB", "IDEMPOTENCY_TEST_MARIADB_URL", "mariadb", 3306, "mysql", "root", "mariadb:11");

	private final String label;

	private final String urlVariable;

	private final String subprotocol;

	private final int port;

	private final String adminDatabase;

	private final String adminUser;

	private final String image;

	DatabaseKind(String label, String urlVariable, String subprotocol, int port, String adminDatabase, String adminUser,
			String image) {
		this.label = label;
		this.urlVariable = urlVariable;
		this.subprotocol = subprotocol;
		this.port = port;
		this.adminDatabase = adminDatabase;
		this.adminUser = adminUser;
		this.image = image;
	}

	/**
	 * Return the database's name, for messages.
	 * @return the name
	 */
	public String label() {
		return this.label;
	}

	/**
	 * Return the environment variable with the JDBC URL of a running server of this kind
	 * to test against, its user and password as URL parameters ({@code user},
	 * {@code password}); the tests create databases of their own on it.
	 * @return the variable's name
	 */
	public String urlVariable() {
		return this.urlVariable;
	}

	String exampleUrl() {
		return adminUrl("127.0.0.1", this.port).replace("/" + this.adminDatabase + "?", "/test?");
	}

	/**
	 * Return the URL of the database that every server of this kind has, as the superuser
	 * that a server the tests start has, without a password.
	 * @param host the server's host
	 * @param port the server's port
	 * @return the URL
	 */
	String adminUrl(String host, int port) {
		return "jdbc:" + this.subprotocol + "://" + host + ":" + port + "/" + this.adminDatabase + "?user="
				+ this.adminUser;
	}

	/**
	 * Return the port the server listens on in its container.
	 * @return the port
	 */
	int containerPort() {
		return this.port;
	}

	/**
	 * Return the image that Testcontainers runs.
	 * @return the image's name
	 */
	String image() {
		return this.image;
	}

}
