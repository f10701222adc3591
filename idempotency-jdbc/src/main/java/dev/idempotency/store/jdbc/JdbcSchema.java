package dev.idempotency.store.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import javax.sql.DataSource;

import org.springframework.core.io.ClassPathResource;
import org.springframework.util.Assert;

/**
 * The schema of the JDBC store: the table and its index, created by a script per database
 * in this jar, {@value #POSTGRESQL_SCRIPT} and {@value #MARIADB_SCRIPT} (for MariaDB and
 * MySQL). Each script only creates what is missing, so running it on every start is
 * harmless. Applications that manage their schema with Flyway or Liquibase copy the
 * script into their migrations, replacing {@code ${table}} with the table's name
 * (optionally schema-qualified) and {@code ${table_name}} with that name without its
 * schema.
 */
public final class JdbcSchema {

	/**
	 * Class path location of the PostgreSQL script.
	 */
	public static final String POSTGRESQL_SCRIPT = "dev/idempotency/store/jdbc/schema-postgresql.sql";

	/**
	 * Class path location of the MariaDB and MySQL script.
	 */
	public static final String MARIADB_SCRIPT = "dev/idempotency/store/jdbc/schema-mariadb.sql";

	private static final int MAX_ATTEMPTS = 3;

	private static final Set<String> CREATED_MEANWHILE = Set.of("23505", "42P07", "42710");

	private JdbcSchema() {
	}

	/**
	 * Create the store's table and index in a database, unless they exist, with the
	 * script of that database, each statement committed at once on a connection of its
	 * own. When a statement fails but the table exists and can be read, such as for a
	 * user allowed to write rows but not to create tables, the table is used as it is.
	 * @param dataSource the database
	 * @param table the table, {@code table} or {@code schema.table}: letters, digits and
	 * {@code _}
	 * @throws IllegalArgumentException if the table name is not such an identifier
	 * @throws IllegalStateException if the database is not supported, or a statement
	 * fails, saying which
	 */
	public static void initialize(DataSource dataSource, String table) {
		Assert.notNull(dataSource, "'dataSource' must not be null");
		TableName name = TableName.of(table);
		JdbcDialect dialect;
		try {
			dialect = JdbcDialect.detect(dataSource, name);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(
					"Could not reach the database to create the idempotency table " + name + ": " + ex.getMessage(),
					ex);
		}
		List<String> statements = statements(dialect.schemaScript(), name);
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			boolean autoCommit = connection.getAutoCommit();
			connection.setAutoCommit(true);
			try {
				for (String sql : statements) {
					execute(statement, sql);
				}
			}
			finally {
				connection.setAutoCommit(autoCommit);
			}
		}
		catch (SQLException ex) {
			if (tableExists(dataSource, name)) {
				return;
			}
			throw new IllegalStateException("Could not create the idempotency table " + name + " on " + dialect.name()
					+ " with " + dialect.schemaScript() + ": " + ex.getMessage(), ex);
		}
	}

	private static boolean tableExists(DataSource dataSource, TableName table) {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.executeQuery("SELECT record_key FROM " + table.qualified() + " WHERE 1 = 0").close();
			return true;
		}
		catch (SQLException ex) {
			return false;
		}
	}

	// PostgreSQL's IF NOT EXISTS looks in the catalog before it writes to it: another
	// instance creating the same table or index at that moment fails the statement on a
	// unique index of the catalog (23505) or as a duplicate (42P07, 42710). Run again, it
	// finds what the other one created
	private static void execute(Statement statement, String sql) throws SQLException {
		for (int attempt = 1;; attempt++) {
			try {
				statement.execute(sql);
				return;
			}
			catch (SQLException ex) {
				if (attempt >= MAX_ATTEMPTS || !CREATED_MEANWHILE.contains(ex.getSQLState())) {
					throw ex;
				}
			}
		}
	}

	/**
	 * Return the statements of a script, its comments left out and its placeholders
	 * replaced.
	 */
	static List<String> statements(String script, TableName table) {
		String text;
		try (InputStream in = new ClassPathResource(script, JdbcSchema.class.getClassLoader()).getInputStream()) {
			text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read " + script, ex);
		}
		StringBuilder code = new StringBuilder();
		for (String line : text.split("\n")) {
			if (!line.strip().startsWith("--")) {
				code.append(line).append('\n');
			}
		}
		String substituted = code.toString()
			.replace("${table}", table.qualified())
			.replace("${table_name}", table.simple());
		List<String> statements = new ArrayList<>();
		for (String statement : substituted.split(";")) {
			if (!statement.isBlank()) {
				statements.add(statement.strip());
			}
		}
		return statements;
	}

}
