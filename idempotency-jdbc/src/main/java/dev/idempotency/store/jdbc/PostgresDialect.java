package dev.idempotency.store.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HexFormat;
import java.util.function.IntSupplier;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.RecordKey;

/**
 * PostgreSQL. Time is {@code clock_timestamp()}, read once per statement: {@code now()}
 * would be the start of the transaction, and a completion may run inside a caller's
 * transaction that began long before. An acquire inserts or reads in one statement, and
 * statements that must not wait for a row lock take it first with {@code NOWAIT}.
 */
final class PostgresDialect extends JdbcDialect {

	private static final String NOW = "WITH now AS MATERIALIZED (SELECT clock_timestamp() AS t) ";

	// A held row lock fails the statement at once (55P03) instead of waiting for it
	private static final String NOW_LOCKED = NOW + ", locked AS (SELECT record_key FROM %1$s "
			+ "WHERE record_key = :key FOR UPDATE NOWAIT) ";

	private static final String LEASE = "now.t + :lease * INTERVAL '1 millisecond'";

	private static final String LEASE_AND_RETENTION = "now.t + (:lease + :retention) * INTERVAL '1 millisecond'";

	private static final String CLAIM = NOW_LOCKED + "UPDATE %1$s AS r SET state = 'IN_PROGRESS', fence = :new_fence, "
			+ "owner = :owner, takeover = :takeover, started_at = now.t, lease_until = " + LEASE
			+ ", completed_at = NULL, expires_at = " + LEASE_AND_RETENTION
			+ ", fingerprint = :fingerprint, reason = NULL, failure_type = NULL, result = NULL FROM now, locked "
			+ "WHERE r.record_key = locked.record_key AND ";

	private static final String LIVE_AND_OWNED = "r.record_key = :key AND r.owner = :owner AND r.fence = :fence "
			+ "AND r.state = 'IN_PROGRESS' AND r.expires_at > now.t";

	private final NamedSql acquire;

	PostgresDialect(TableName table) {
		super(table, statements(table.qualified()));
		// The insert is tried only when the statement's snapshot holds no row: on a row
		// that an open transaction has updated (a completion inside a caller's
		// transaction), its unique check would wait for that transaction to end
		this.acquire = NamedSql.of(String.format(NOW
				+ ", existing AS MATERIALIZED (SELECT * FROM %1$s WHERE record_key = :key), "
				+ "inserted AS (INSERT INTO %1$s (record_key, state, fence, owner, takeover, started_at, lease_until, "
				+ "expires_at, fingerprint) SELECT :key, 'IN_PROGRESS', 1, :owner, FALSE, now.t, " + LEASE + ", "
				+ LEASE_AND_RETENTION + ", :fingerprint FROM now WHERE NOT EXISTS (SELECT 1 FROM existing) "
				+ "ON CONFLICT (record_key) DO NOTHING RETURNING 1) "
				+ "SELECT (SELECT count(*) FROM inserted), now.t, " + COLUMNS
				+ " FROM now LEFT JOIN existing AS r ON TRUE", table.qualified()));
	}

	// Above READ COMMITTED, an UPDATE sees the transaction's snapshot: a record acquired
	// after it was taken is not there to complete (a lost lock, every time), and one
	// renewed since fails the statement (40001)
	@Override
	boolean joinsAt(IntSupplier isolation) {
		return isolation.getAsInt() <= Connection.TRANSACTION_READ_COMMITTED;
	}

	private static DialectStatements statements(String table) {
		NamedSql extend = sql(
				NOW_LOCKED + "UPDATE %1$s AS r SET lease_until = " + LEASE + ", expires_at = " + LEASE_AND_RETENTION
						+ " FROM now, locked WHERE r.record_key = locked.record_key AND " + LIVE_AND_OWNED,
				table);
		return new DialectStatements(sql(CLAIM + "r.expires_at <= now.t", table),
				sql(CLAIM + "r.state = 'IN_PROGRESS' AND r.fence = :fence AND r.owner = :held_by "
						+ "AND r.lease_until <= now.t AND r.expires_at > now.t", table),
				sql(CLAIM + "r.state = 'FAILED' AND r.fence = :fence AND r.expires_at > now.t", table), extend,
				sql(NOW + "UPDATE %1$s AS r SET state = 'COMPLETED', completed_at = now.t, expires_at = now.t + "
						+ ":retention * INTERVAL '1 millisecond', reason = :reason, failure_type = :failure_type, "
						+ "result = :result FROM now WHERE " + LIVE_AND_OWNED, table),
				sql(NOW + "UPDATE %1$s AS r SET state = 'FAILED', expires_at = now.t + :retention * "
						+ "INTERVAL '1 millisecond' FROM now WHERE " + LIVE_AND_OWNED, table),
				sql(NOW + "UPDATE %1$s AS r SET state = 'FAILED', expires_at = now.t + :retention * "
						+ "INTERVAL '1 millisecond' FROM now WHERE r.record_key = :key AND r.owner = :owner "
						+ "AND r.state = 'IN_PROGRESS' AND r.expires_at > now.t", table),
				extend,
				sql("SELECT clock_timestamp(), " + COLUMNS + " FROM %1$s AS r WHERE r.record_key = :key", table),
				sql("DELETE FROM %1$s WHERE record_key = :key AND expires_at > clock_timestamp()", table),
				sql("DELETE FROM %1$s WHERE record_key = :key", table));
	}

	private static NamedSql sql(String template, String table) {
		return NamedSql.of(String.format(template, table));
	}

	@Override
	String name() {
		return "PostgreSQL";
	}

	@Override
	String schemaScript() {
		return "dev/idempotency/store/jdbc/schema-postgresql.sql";
	}

	/**
	 * One round trip: the statement reads the row and inserts one only when there is
	 * none, doing nothing on a conflict. The read sees the statement's snapshot, so a row
	 * committed after it was taken is not seen: the acquire then reads again.
	 */
	@Override
	AcquireStart start(Connection connection, Params params) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(this.acquire.sql())) {
			params.bind(statement, this.acquire, this);
			try (ResultSet rs = statement.executeQuery()) {
				if (!rs.next()) {
					throw new SQLException("The acquire statement returned no row");
				}
				if (rs.getLong(1) > 0) {
					return AcquireStart.INSERTED;
				}
				StoredRow row = StoredRow.read(rs, 2, this);
				return (row != null) ? new AcquireStart.Found(row) : AcquireStart.ABSENT;
			}
		}
	}

	@Override
	void setText(PreparedStatement statement, int index, String value) throws SQLException {
		statement.setString(index, value);
	}

	@Override
	@Nullable String getText(ResultSet rs, int column) throws SQLException {
		return rs.getString(column);
	}

	@Override
	@Nullable Instant getInstant(ResultSet rs, int column) throws SQLException {
		OffsetDateTime time = rs.getObject(column, OffsetDateTime.class);
		return (time != null) ? time.toInstant() : null;
	}

	@Override
	boolean isLockNotAvailable(SQLException ex) {
		return "55P03".equals(ex.getSQLState());
	}

	// PostgreSQL's text cannot hold NUL: a reason or a failure type keeps U+FFFD in its
	// place rather than fail a completion inside the caller's transaction
	@Override
	String storableText(String value) {
		return (value.indexOf('\0') >= 0) ? value.replace('\0', '\uFFFD') : value;
	}

	// Nor a key: one that holds NUL is stored as the engine stores a key too long for
	// its column, "sha256:" and the hex SHA-256 of its UTF-8 bytes. No other key meets
	// it: the engine hashes every literal key that starts with "sha256:" too, so that
	// form is only ever this very key's
	@Override
	String storedKey(RecordKey key) {
		String literal = key.key();
		if (literal.indexOf('\0') < 0) {
			return super.storedKey(key);
		}
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(literal.getBytes(StandardCharsets.UTF_8));
			return key.name() + RecordKey.SEPARATOR + "sha256:" + HexFormat.of().formatHex(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

	@Override
	@Nullable String unstorable(String key, @Nullable String owner) {
		if (key.indexOf('\0') >= 0 || (owner != null && owner.indexOf('\0') >= 0)) {
			return "PostgreSQL text cannot hold the NUL character its key or owner token contains";
		}
		return super.unstorable(key, owner);
	}

}
