package dev.idempotency.test.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A running server given by its URL: databases are created on it and left there, under
 * names that start with {@value #PREFIX}, for whoever runs it to drop (a server the tests
 * started drops them with its data).
 */
final class UrlServer implements TestDatabaseServer {

	static final String PREFIX = "idem_test_";

	private final DatabaseKind kind;

	private final String url;

	private final JdbcUrl parsed;

	private final String description;

	UrlServer(DatabaseKind kind, String url) {
		this.kind = kind;
		this.url = url;
		this.parsed = JdbcUrl.parse(url);
		this.description = kind.label() + " at " + this.parsed.withDatabase(this.parsed.database()) + " ("
				+ kind.urlVariable() + ")";
	}

	/**
	 * Create a server at a URL that the tests started.
	 * @param kind the kind of server
	 * @param url its URL
	 * @param description where it comes from, for messages
	 */
	UrlServer(DatabaseKind kind, String url, String description) {
		this.kind = kind;
		this.url = url;
		this.parsed = JdbcUrl.parse(url);
		this.description = description;
	}

	@Override
	public DatabaseKind kind() {
		return this.kind;
	}

	@Override
	public TestDatabase createDatabase() {
		String name = PREFIX + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
		String username = (this.parsed.username() != null) ? this.parsed.username() : "";
		String password = (this.parsed.password() != null) ? this.parsed.password() : "";
		try (Connection connection = DriverManager.getConnection(this.parsed.withDatabase(this.parsed.database()),
				username, password); Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE " + name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create a database on the " + this.kind.label() + " at "
					+ this.url + ": " + ex.getMessage(), ex);
		}
		return new TestDatabase(this.kind, this.parsed.withDatabase(name), username, password);
	}

	@Override
	public String describe() {
		return this.description;
	}

}
