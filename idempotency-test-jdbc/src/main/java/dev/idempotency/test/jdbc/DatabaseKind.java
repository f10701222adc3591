package dev.idempotency.test.jdbc;

/**
 * The databases the tests run on.
 */
public enum DatabaseKind {

	/**
	 * PostgreSQL.
	 */
	POSTGRESQL("PostgreSQL", "IDEMPOTENCY_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"),

	/**
	 * MariaDB, whose server also stands for MySQL.
	 */
	MARIADB("MariaDB", "IDEMPOTENCY_TEST_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root");

	private final String label;

	private final String urlVariable;

	private final String exampleUrl;

	DatabaseKind(String label, String urlVariable, String exampleUrl) {
		this.label = label;
		this.urlVariable = urlVariable;
		this.exampleUrl = exampleUrl;
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
		return this.exampleUrl;
	}

}
