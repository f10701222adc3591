package dev.idempotency.store.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.function.IntSupplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.RecordKey;

/**
 * What differs between the databases the store runs on: its statements, how text and
 * times travel, and which errors mean a lock that is held or a transaction to retry. The
 * statements of both dialects take the same named parameters (see {@link Params}).
 */
abstract class JdbcDialect {

	/**
	 * The columns every statement that reads a row selects, in this order, after the
	 * database's time.
	 */
	static final String COLUMNS = "r.state, r.fence, r.owner, r.takeover, r.started_at, r.lease_until, "
			+ "r.completed_at, r.expires_at, r.fingerprint, r.reason, r.failure_type, r.result";

	/**
	 * The longest stored record key, {@code name:key}, in characters: the size of the key
	 * column.
	 */
	static final int MAX_KEY_LENGTH = 512;

	/**
	 * The longest owner token, in characters.
	 */
	static final int MAX_OWNER_LENGTH = 128;

	private static final String POSTGRES_SCHEMA = "SELECT coalesce((SELECT n.nspname FROM pg_catalog.pg_class c "
			+ "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass(?)), "
			+ "current_schema())";

	private final TableName table;

	private final DialectStatements statements;

	JdbcDialect(TableName table, DialectStatements statements) {
		this.table = table;
		this.statements = statements;
	}

	/**
	 * Detect the dialect of a data source's database from its metadata.
	 * @throws SQLException when no connection can be had
	 * @throws IllegalStateException when the database is not one the store supports
	 */
	static JdbcDialect detect(DataSource dataSource, TableName table) throws SQLException {
		return detect(dataSource, table, false);
	}

	/**
	 * Detect the dialect of a data source's database from its metadata, its statements
	 * naming the table as this data source's connections find it when {@code qualify} is
	 * set and the name has no schema: a completion runs on the connection of a caller's
	 * transaction, which may look in another schema (a tenant's {@code search_path} on
	 * PostgreSQL, a tenant's database on MariaDB).
	 * @throws SQLException when no connection can be had
	 * @throws IllegalStateException when the database is not one the store supports
	 */
	static JdbcDialect detect(DataSource dataSource, TableName table, boolean qualify) throws SQLException {
		try (Connection connection = dataSource.getConnection()) {
			DatabaseMetaData metaData = connection.getMetaData();
			String product = metaData.getDatabaseProductName();
			String version = metaData.getDatabaseProductVersion();
			if ("PostgreSQL".equalsIgnoreCase(product)) {
				return new PostgresDialect(qualify ? qualified(connection, table, POSTGRES_SCHEMA, '"') : table);
			}
			boolean mariaDb = "MariaDB".equalsIgnoreCase(product)
					|| (version != null && version.toLowerCase(java.util.Locale.ROOT).contains("mariadb"));
			if (mariaDb || "MySQL".equalsIgnoreCase(product)) {
				return new MariaDbDialect(qualify ? qualified(connection, table, "SELECT DATABASE()", '`') : table,
						mariaDb);
			}
			throw new IllegalStateException("The JDBC idempotency store supports PostgreSQL, MariaDB and MySQL, not "
					+ product + " " + version);
		}
	}

	// The schema of the table as the connection finds it, else the one it would be
	// created in
	private static TableName qualified(Connection connection, TableName table, String schemaQuery, char quote)
			throws SQLException {
		if (table.isQualified()) {
			return table;
		}
		try (PreparedStatement statement = connection.prepareStatement(schemaQuery)) {
			if (schemaQuery.indexOf('?') >= 0) {
				statement.setString(1, table.simple());
			}
			try (ResultSet rs = statement.executeQuery()) {
				String schema = rs.next() ? rs.getString(1) : null;
				return (schema != null)
						? table.in(quote + schema.replace(String.valueOf(quote), "" + quote + quote) + quote) : table;
			}
		}
	}

	TableName table() {
		return this.table;
	}

	DialectStatements statements() {
		return this.statements;
	}

	/**
	 * Return the name of the database, for messages.
	 */
	abstract String name();

	/**
	 * Return the class path location of the schema script.
	 */
	abstract String schemaScript();

	/**
	 * Run the first step of an acquire: insert a new record, or read the one there is.
	 */
	abstract AcquireStart start(Connection connection, Params params) throws SQLException;

	/**
	 * Bind a key or an owner token, which compare exactly.
	 */
	abstract void setText(PreparedStatement statement, int index, String value) throws SQLException;

	abstract @Nullable String getText(ResultSet rs, int column) throws SQLException;

	abstract @Nullable Instant getInstant(ResultSet rs, int column) throws SQLException;

	/**
	 * Return whether a statement failed because the row was locked and it was asked not
	 * to wait.
	 */
	abstract boolean isLockNotAvailable(SQLException ex);

	/**
	 * Return whether a statement on a connection of the store's own was undone by a
	 * deadlock or a serialization failure and may be run again.
	 */
	boolean isRetryable(SQLException ex) {
		return "40001".equals(ex.getSQLState()) || "40P01".equals(ex.getSQLState());
	}

	/**
	 * Return whether a completion may join a caller's transaction at its isolation level.
	 * Any level here: under REPEATABLE READ, MariaDB's and MySQL's {@code UPDATE} reads
	 * the latest committed row (a locking read), not the transaction's snapshot.
	 * @param isolation the transaction's level, a {@link Connection} constant, read only
	 * if the dialect needs it
	 */
	boolean joinsAt(IntSupplier isolation) {
		return true;
	}

	/**
	 * Return the stored form of a record's key, {@code name:key}, as its row's key column
	 * holds it.
	 */
	String storedKey(RecordKey key) {
		return key.toString();
	}

	/**
	 * Return a text as the database can store it.
	 */
	String storableText(String value) {
		return value;
	}

	/**
	 * Check that a key and an owner token fit their columns, before any statement: a
	 * statement that failed would abort the caller's transaction on some databases.
	 * @return the reason why they do not, or {@code null}
	 */
	@Nullable String unstorable(String key, @Nullable String owner) {
		int length = key.codePointCount(0, key.length());
		if (length > MAX_KEY_LENGTH) {
			return "its stored form, name:key, is " + length + " characters long, and the key column holds "
					+ MAX_KEY_LENGTH + "; lower idempotency.max-key-length, so that longer keys are stored hashed";
		}
		if (owner != null && owner.codePointCount(0, owner.length()) > MAX_OWNER_LENGTH) {
			return "its owner token is longer than " + MAX_OWNER_LENGTH + " characters";
		}
		return null;
	}

	final int update(Connection connection, NamedSql sql, Params params) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql.sql())) {
			params.bind(statement, sql, this);
			return statement.executeUpdate();
		}
	}

	/**
	 * Run a statement that selects the database's time and a row.
	 * @return the row, or {@code null} when there is none
	 */
	final @Nullable StoredRow queryRow(Connection connection, NamedSql sql, Params params) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql.sql())) {
			params.bind(statement, sql, this);
			try (ResultSet rs = statement.executeQuery()) {
				return rs.next() ? StoredRow.read(rs, 1, this) : null;
			}
		}
	}

}
