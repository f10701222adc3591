package dev.idempotency.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;

import org.springframework.util.Assert;

/**
 * Deletes the rows of a {@link JdbcIdempotencyStore}'s table whose records have expired,
 * a small batch at a time, so that no statement holds many row locks or runs for long.
 * Expiry is judged on the database's clock, by the same statement that deletes: a row
 * that a new attempt took over meanwhile is not expired any more, and stays. On
 * PostgreSQL a batch locks its rows with {@code FOR UPDATE SKIP LOCKED} and deletes them
 * by {@code ctid}, so that it never waits for a row a transition holds; on MariaDB and
 * MySQL it is a {@code DELETE ... ORDER BY expires_at LIMIT n} on the index of
 * {@code expires_at}. Each batch commits at once, on a connection of its own.
 */
public final class JdbcRecordCleaner {

	private static final int MAX_ATTEMPTS = 5;

	private final DataSource dataSource;

	private final TableName table;

	private final String postgres;

	private final String mariaDb;

	private volatile @Nullable JdbcDialect dialect;

	/**
	 * Create a cleaner of a store's table.
	 * @param dataSource the database of the store
	 * @param table the store's table, {@code table} or {@code schema.table}
	 * @throws IllegalArgumentException if the table name is not such an identifier
	 */
	public JdbcRecordCleaner(DataSource dataSource, String table) {
		Assert.notNull(dataSource, "'dataSource' must not be null");
		this.dataSource = dataSource;
		this.table = TableName.of(table);
		String name = this.table.qualified();
		this.postgres = "DELETE FROM " + name + " WHERE ctid IN (SELECT ctid FROM " + name
				+ " WHERE expires_at <= clock_timestamp() LIMIT ? FOR UPDATE SKIP LOCKED) "
				+ "AND expires_at <= clock_timestamp()";
		this.mariaDb = "DELETE FROM " + name + " WHERE expires_at <= UTC_TIMESTAMP(6) ORDER BY expires_at LIMIT ?";
	}

	/**
	 * Delete at most a batch of expired records.
	 * @param batchSize the most rows to delete, at least 1
	 * @return the number of rows deleted: fewer than {@code batchSize} when no more had
	 * expired (or the others were locked)
	 * @throws IdempotencyStoreException if the database could not be reached or the
	 * statement failed
	 */
	public int deleteExpired(int batchSize) {
		Assert.isTrue(batchSize > 0, "'batchSize' must be at least 1");
		try {
			JdbcDialect dialect = dialect();
			String sql = (dialect instanceof PostgresDialect) ? this.postgres : this.mariaDb;
			try (Connection connection = this.dataSource.getConnection()) {
				boolean autoCommit = connection.getAutoCommit();
				connection.setAutoCommit(true);
				try (PreparedStatement statement = connection.prepareStatement(sql)) {
					statement.setInt(1, batchSize);
					return delete(statement, dialect);
				}
				finally {
					connection.setAutoCommit(autoCommit);
				}
			}
		}
		catch (SQLException | IllegalStateException ex) {
			throw new IdempotencyStoreException(
					"Could not delete expired idempotency records from table " + this.table + ": " + ex.getMessage(),
					ex);
		}
	}

	// MariaDB's range delete takes next-key locks in index order, against acquires that
	// claim expired rows in key order: one of them can be chosen as a deadlock's victim.
	// The victim's statement was rolled back whole, so it runs again
	private static int delete(PreparedStatement statement, JdbcDialect dialect) throws SQLException {
		for (int attempt = 1;; attempt++) {
			try {
				return statement.executeUpdate();
			}
			catch (SQLException ex) {
				if (attempt >= MAX_ATTEMPTS || !dialect.isRetryable(ex)) {
					throw ex;
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(attempt));
			}
		}
	}

	private JdbcDialect dialect() throws SQLException {
		JdbcDialect dialect = this.dialect;
		if (dialect == null) {
			dialect = JdbcDialect.detect(this.dataSource, this.table);
			this.dialect = dialect;
		}
		return dialect;
	}

	@Override
	public String toString() {
		return "cleaner of idempotency table " + this.table;
	}

}
