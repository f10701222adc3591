package dev.idempotency.store.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;

/**
 * Checks that a {@link JdbcIdempotencyStore} can write its records: that its table
 * exists, that a write to it is accepted (an {@code UPDATE} that matches no row, so
 * nothing changes), and that the database is not a read-only replica
 * ({@code pg_is_in_recovery()} and {@code transaction_read_only} on PostgreSQL,
 * {@code @@read_only} and {@code @@innodb_read_only} on MariaDB and MySQL, which a user
 * with the {@code SUPER} privilege could otherwise write through).
 *
 * @see JdbcIdempotencyStore#tableCheck()
 */
public final class JdbcTableCheck {

	private final DataSource dataSource;

	private final TableName table;

	JdbcTableCheck(DataSource dataSource, TableName table) {
		this.dataSource = dataSource;
		this.table = table;
	}

	/**
	 * Check the table and the database.
	 * @return what was found
	 * @throws IdempotencyStoreException if the database could not be reached
	 */
	public Status check() {
		JdbcDialect dialect;
		try {
			dialect = JdbcDialect.detect(this.dataSource, this.table);
		}
		catch (SQLException | IllegalStateException ex) {
			throw new IdempotencyStoreException(
					"Could not reach the database of the idempotency table " + this.table + ": " + ex.getMessage(), ex);
		}
		boolean postgres = dialect instanceof PostgresDialect;
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			try {
				statement.executeUpdate("UPDATE " + this.table + " SET fence = fence WHERE record_key IS NULL");
			}
			catch (SQLException ex) {
				return new Status(dialect.name(), this.table.qualified(), isTableMissing(ex, postgres)
						? missing(dialect) : "a write to table " + this.table + " failed: " + ex.getMessage());
			}
			String readOnly = postgres ? "SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on'"
					: "SELECT @@read_only <> 0, @@innodb_read_only <> 0";
			try (ResultSet rs = statement.executeQuery(readOnly)) {
				rs.next();
				String problem = null;
				if (rs.getBoolean(1)) {
					problem = postgres
							? "the database is a replica in recovery (pg_is_in_recovery()), which refuses "
									+ "writes: point the store at the primary"
							: "the database is read-only (@@read_only): point the store at the primary";
				}
				else if (rs.getBoolean(2)) {
					problem = postgres ? "transactions are read-only (transaction_read_only = on)"
							: "InnoDB is read-only (@@innodb_read_only)";
				}
				return new Status(dialect.name(), this.table.qualified(), problem);
			}
		}
		catch (SQLException ex) {
			throw new IdempotencyStoreException(
					"Could not check the idempotency table " + this.table + ": " + ex.getMessage(), ex);
		}
	}

	private String missing(JdbcDialect dialect) {
		return "table " + this.table + " does not exist: create it with the script " + dialect.schemaScript()
				+ " of idempotency-jdbc (in your migrations, or with idempotency.jdbc.initialize-schema=always)";
	}

	// 42P01: undefined_table; 1146: ER_NO_SUCH_TABLE (SQLState 42S02)
	private static boolean isTableMissing(SQLException ex, boolean postgres) {
		return postgres ? "42P01".equals(ex.getSQLState())
				: ex.getErrorCode() == 1146 || "42S02".equals(ex.getSQLState());
	}

	/**
	 * What a check found.
	 *
	 * @param database the database's name, such as {@code PostgreSQL}
	 * @param table the table
	 * @param problem why records cannot be written, or {@code null} when they can
	 */
	public record Status(String database, String table, @Nullable String problem) {

	}

}
