package dev.idempotency.store.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

import org.jspecify.annotations.Nullable;

/**
 * MariaDB and MySQL. Time is {@code UTC_TIMESTAMP(6)}, fixed for the whole statement, in
 * {@code DATETIME(6)} columns; keys and owner tokens travel as UTF-8 bytes into
 * {@code VARBINARY} columns, which compare exactly. An acquire reads first (a replay is
 * one round trip and takes no lock) and inserts when there is no row. On MariaDB,
 * statements that must not wait for a row lock run with
 * {@code SET STATEMENT innodb_lock_wait_timeout = 0}; MySQL has no such prefix, and they
 * wait there up to its {@code innodb_lock_wait_timeout}.
 */
final class MariaDbDialect extends JdbcDialect {

	private static final String NOW = "UTC_TIMESTAMP(6)";

	private static final String LEASE = NOW + " + INTERVAL (:lease * 1000) MICROSECOND";

	private static final String LEASE_AND_RETENTION = NOW + " + INTERVAL ((:lease + :retention) * 1000) MICROSECOND";

	private static final String NO_WAIT = "SET STATEMENT innodb_lock_wait_timeout = 0 FOR ";

	private static final String LIVE_AND_OWNED = "record_key = :key AND owner = :owner AND fence = :fence "
			+ "AND state = 'IN_PROGRESS' AND expires_at > " + NOW;

	// ER_LOCK_WAIT_TIMEOUT, which innodb_lock_wait_timeout = 0 raises at once
	private static final int LOCK_WAIT_TIMEOUT = 1205;

	private static final int DEADLOCK = 1213;

	private static final int DUPLICATE_KEY = 1062;

	private final NamedSql insert;

	private final boolean mariaDb;

	MariaDbDialect(TableName table, boolean mariaDb) {
		super(table, statements(table.qualified(), mariaDb ? NO_WAIT : ""));
		this.mariaDb = mariaDb;
		this.insert = sql("INSERT INTO %1$s (record_key, state, fence, owner, takeover, started_at, lease_until, "
				+ "expires_at, fingerprint) VALUES (:key, 'IN_PROGRESS', 1, :owner, FALSE, " + NOW + ", " + LEASE + ", "
				+ LEASE_AND_RETENTION + ", :fingerprint)", table.qualified());
	}

	private static DialectStatements statements(String table, String noWait) {
		// MariaDB assigns from left to right, each assignment seeing the ones before it:
		// none of these reads a column it sets
		String claim = noWait + "UPDATE %1$s SET state = 'IN_PROGRESS', fence = :new_fence, owner = :owner, "
				+ "takeover = :takeover, started_at = " + NOW + ", lease_until = " + LEASE
				+ ", completed_at = NULL, expires_at = " + LEASE_AND_RETENTION
				+ ", fingerprint = :fingerprint, reason = NULL, failure_type = NULL, result = NULL "
				+ "WHERE record_key = :key AND ";
		NamedSql extend = sql(noWait + "UPDATE %1$s SET lease_until = " + LEASE + ", expires_at = "
				+ LEASE_AND_RETENTION + " WHERE " + LIVE_AND_OWNED, table);
		String fail = "UPDATE %1$s SET state = 'FAILED', expires_at = " + NOW
				+ " + INTERVAL (:retention * 1000) MICROSECOND WHERE ";
		return new DialectStatements(sql(claim + "expires_at <= " + NOW, table),
				sql(claim + "state = 'IN_PROGRESS' AND fence = :fence AND owner = :held_by AND lease_until <= " + NOW
						+ " AND expires_at > " + NOW, table),
				sql(claim + "state = 'FAILED' AND fence = :fence AND expires_at > " + NOW, table), extend,
				sql("UPDATE %1$s SET state = 'COMPLETED', completed_at = " + NOW + ", expires_at = " + NOW
						+ " + INTERVAL (:retention * 1000) MICROSECOND, reason = :reason, failure_type = :failure_type,"
						+ " result = :result WHERE " + LIVE_AND_OWNED, table),
				sql(fail + LIVE_AND_OWNED, table),
				sql(fail + "record_key = :key AND owner = :owner AND state = 'IN_PROGRESS' AND expires_at > " + NOW,
						table),
				extend, sql("SELECT " + NOW + ", " + COLUMNS + " FROM %1$s AS r WHERE r.record_key = :key", table),
				sql("DELETE FROM %1$s WHERE record_key = :key AND expires_at > " + NOW, table),
				sql("DELETE FROM %1$s WHERE record_key = :key", table));
	}

	private static NamedSql sql(String template, String table) {
		return NamedSql.of(String.format(template, table));
	}

	@Override
	String name() {
		return this.mariaDb ? "MariaDB" : "MySQL";
	}

	@Override
	String schemaScript() {
		return "dev/idempotency/store/jdbc/schema-mariadb.sql";
	}

	/**
	 * A consistent read, then an insert when there is no row; an insert that meets a row
	 * inserted meanwhile fails on the store's own connection, harmlessly, and the acquire
	 * reads again.
	 */
	@Override
	AcquireStart start(Connection connection, Params params) throws SQLException {
		StoredRow row = queryRow(connection, statements().read(), params);
		if (row != null) {
			return new AcquireStart.Found(row);
		}
		try {
			update(connection, this.insert, params);
			return AcquireStart.INSERTED;
		}
		catch (SQLException ex) {
			if (ex instanceof SQLIntegrityConstraintViolationException || ex.getErrorCode() == DUPLICATE_KEY) {
				return AcquireStart.ABSENT;
			}
			throw ex;
		}
	}

	@Override
	void setText(PreparedStatement statement, int index, String value) throws SQLException {
		statement.setBytes(index, value.getBytes(StandardCharsets.UTF_8));
	}

	@Override
	@Nullable String getText(ResultSet rs, int column) throws SQLException {
		byte[] bytes = rs.getBytes(column);
		return (bytes != null) ? new String(bytes, StandardCharsets.UTF_8) : null;
	}

	@Override
	@Nullable Instant getInstant(ResultSet rs, int column) throws SQLException {
		LocalDateTime time = rs.getObject(column, LocalDateTime.class);
		return (time != null) ? time.toInstant(ZoneOffset.UTC) : null;
	}

	@Override
	boolean isLockNotAvailable(SQLException ex) {
		return ex.getErrorCode() == LOCK_WAIT_TIMEOUT;
	}

	@Override
	boolean isRetryable(SQLException ex) {
		return ex.getErrorCode() == DEADLOCK || super.isRetryable(ex);
	}

}
