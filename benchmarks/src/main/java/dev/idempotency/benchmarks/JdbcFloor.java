package dev.idempotency.benchmarks;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Arrays;

import javax.sql.DataSource;

import dev.idempotency.test.jdbc.DatabaseKind;

/**
 * The JDBC floor: the store's own statements by hand on plain JDBC, a
 * {@link PreparedStatement} on a Hikari pool of the application's size. A new key is the
 * store's acquire (one statement on PostgreSQL; a read, then an insert on MariaDB) on one
 * connection of the pool, then its complete on another, as the store takes them; a replay
 * is the acquire alone, its stored bytes handed back undecoded. The body is encoded once,
 * up front: no JSON, no expression, no lease renewal, no decision on the row beyond its
 * state. The SQL is copied from the dialects (their classes are package-private), with
 * the table named as the store names it, qualified by the schema (MariaDB: the database)
 * it is in: {@link JdbcFloorCheck} compares it with the store's at startup.
 */
final class JdbcFloor {

	static final String PG_ACQUIRE = "WITH now AS MATERIALIZED (SELECT clock_timestamp() AS t) , existing AS "
			+ "MATERIALIZED (SELECT * FROM %1$s WHERE record_key = ?), inserted AS (INSERT INTO "
			+ "%1$s (record_key, state, fence, owner, takeover, started_at, lease_until, expires_at, "
			+ "fingerprint) SELECT ?, 'IN_PROGRESS', 1, ?, FALSE, now.t, now.t + ? * INTERVAL '1 millisecond', "
			+ "now.t + (? + ?) * INTERVAL '1 millisecond', ? FROM now WHERE NOT EXISTS (SELECT 1 FROM existing) "
			+ "ON CONFLICT (record_key) DO NOTHING RETURNING 1) SELECT (SELECT count(*) FROM inserted), now.t, "
			+ "r.state, r.fence, r.owner, r.takeover, r.started_at, r.lease_until, r.completed_at, r.expires_at, "
			+ "r.fingerprint, r.reason, r.failure_type, r.result FROM now LEFT JOIN existing AS r ON TRUE";

	static final String PG_COMPLETE = "WITH now AS MATERIALIZED (SELECT clock_timestamp() AS t) UPDATE "
			+ "%1$s AS r SET state = 'COMPLETED', completed_at = now.t, expires_at = now.t + ? * "
			+ "INTERVAL '1 millisecond', reason = ?, failure_type = ?, result = ? FROM now WHERE r.record_key = ? "
			+ "AND r.owner = ? AND r.fence = ? AND r.state = 'IN_PROGRESS' AND r.expires_at > now.t";

	static final String MARIADB_READ = "SELECT UTC_TIMESTAMP(6), r.state, r.fence, r.owner, r.takeover, "
			+ "r.started_at, r.lease_until, r.completed_at, r.expires_at, r.fingerprint, r.reason, r.failure_type, "
			+ "r.result FROM %1$s AS r WHERE r.record_key = ?";

	static final String MARIADB_INSERT = "INSERT INTO %1$s (record_key, state, fence, owner, takeover, "
			+ "started_at, lease_until, expires_at, fingerprint) VALUES (?, 'IN_PROGRESS', 1, ?, FALSE, "
			+ "UTC_TIMESTAMP(6), UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND, UTC_TIMESTAMP(6) + INTERVAL "
			+ "((? + ?) * 1000) MICROSECOND, ?)";

	static final String MARIADB_COMPLETE = "UPDATE %1$s SET state = 'COMPLETED', completed_at = "
			+ "UTC_TIMESTAMP(6), expires_at = UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND, reason = ?, "
			+ "failure_type = ?, result = ? WHERE record_key = ? AND owner = ? AND fence = ? AND state = "
			+ "'IN_PROGRESS' AND expires_at > UTC_TIMESTAMP(6)";

	/**
	 * The parameters of the statements above, in their order, as the dialects name them.
	 */
	static final String PG_ACQUIRE_PARAMS = "key,key,owner,lease,lease,retention,fingerprint";

	static final String COMPLETE_PARAMS = "retention,reason,failure_type,result,key,owner,fence";

	static final String MARIADB_READ_PARAMS = "key";

	static final String MARIADB_INSERT_PARAMS = "key,owner,lease,lease,retention,fingerprint";

	// As long as the engine's owner tokens
	private static final String OWNER = "floor-owner-0001";

	private final DataSource dataSource;

	private final boolean postgres;

	private final String keyPrefix;

	private final long lease;

	private final long retention;

	private final byte[] body;

	private final String acquire;

	private final String read;

	private final String insert;

	private final String complete;

	/**
	 * Create the floor.
	 * @param dataSource a pool of its own, of the application's size
	 * @param kind the database
	 * @param keyPrefix the operation's name and {@code :}, as the store's record keys
	 * start
	 * @param leaseMillis the lease the starter asks for
	 * @param retentionMillis the retention the starter asks for
	 * @param body the encoded result the starter stores
	 */
	JdbcFloor(DataSource dataSource, DatabaseKind kind, String keyPrefix, long leaseMillis, long retentionMillis,
			byte[] body) {
		this.dataSource = dataSource;
		this.postgres = kind == DatabaseKind.POSTGRESQL;
		this.keyPrefix = keyPrefix;
		this.lease = leaseMillis;
		this.retention = retentionMillis;
		this.body = body;
		String table = qualifiedTable(dataSource, this.postgres);
		this.acquire = String.format(PG_ACQUIRE, table);
		this.read = String.format(MARIADB_READ, table);
		this.insert = String.format(MARIADB_INSERT, table);
		this.complete = String.format(this.postgres ? PG_COMPLETE : MARIADB_COMPLETE, table);
	}

	/**
	 * Return the store's table as the store names it in its statements.
	 * @param dataSource the database
	 * @param postgres whether it is PostgreSQL, else MariaDB
	 * @return the table, qualified
	 */
	static String qualifiedTable(DataSource dataSource, boolean postgres) {
		String query = postgres ? "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
				+ "WHERE c.relname = 'idempotency_record' AND pg_table_is_visible(c.oid)" : "SELECT DATABASE()";
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(query);
				ResultSet rs = statement.executeQuery()) {
			rs.next();
			char quote = postgres ? '"' : '`';
			return quote + rs.getString(1) + quote + ".idempotency_record";
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not find the store's table", ex);
		}
	}

	/**
	 * Run one call: acquire and complete a new key, or replay a completed one.
	 * @param id the idempotency key
	 * @return the stored body
	 * @throws SQLException if a statement fails
	 */
	byte[] call(String id) throws SQLException {
		String key = this.keyPrefix + id;
		byte[] stored;
		try (Connection connection = this.dataSource.getConnection()) {
			stored = this.postgres ? acquirePostgres(connection, key) : acquireMariaDb(connection, key);
		}
		if (stored != null) {
			return stored;
		}
		try (Connection connection = this.dataSource.getConnection()) {
			complete(connection, key);
		}
		return this.body;
	}

	// The stored result of a completed record, null when the row was inserted
	private byte[] acquirePostgres(Connection connection, String key) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(this.acquire)) {
			statement.setString(1, key);
			statement.setString(2, key);
			statement.setString(3, OWNER);
			statement.setLong(4, this.lease);
			statement.setLong(5, this.lease);
			statement.setLong(6, this.retention);
			statement.setNull(7, Types.BINARY);
			try (ResultSet rs = statement.executeQuery()) {
				rs.next();
				return (rs.getLong(1) > 0) ? null : completed(key, rs.getString(3), rs.getBytes(14));
			}
		}
	}

	private byte[] acquireMariaDb(Connection connection, String key) throws SQLException {
		byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
		try (PreparedStatement statement = connection.prepareStatement(this.read)) {
			statement.setBytes(1, bytes);
			try (ResultSet rs = statement.executeQuery()) {
				if (rs.next()) {
					return completed(key, rs.getString(2), rs.getBytes(13));
				}
			}
		}
		try (PreparedStatement statement = connection.prepareStatement(this.insert)) {
			statement.setBytes(1, bytes);
			statement.setBytes(2, OWNER.getBytes(StandardCharsets.UTF_8));
			statement.setLong(3, this.lease);
			statement.setLong(4, this.lease);
			statement.setLong(5, this.retention);
			statement.setNull(6, Types.BINARY);
			statement.executeUpdate();
			return null;
		}
	}

	private void complete(Connection connection, String key) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(this.complete)) {
			statement.setLong(1, this.retention);
			statement.setNull(2, Types.VARCHAR);
			statement.setNull(3, Types.VARCHAR);
			statement.setBytes(4, this.body);
			if (this.postgres) {
				statement.setString(5, key);
				statement.setString(6, OWNER);
			}
			else {
				statement.setBytes(5, key.getBytes(StandardCharsets.UTF_8));
				statement.setBytes(6, OWNER.getBytes(StandardCharsets.UTF_8));
			}
			statement.setLong(7, 1);
			if (statement.executeUpdate() != 1) {
				throw new IllegalStateException("The floor's completion of " + key + " changed nothing");
			}
		}
	}

	private static byte[] completed(String key, String state, byte[] result) {
		if (!"COMPLETED".equals(state) || result == null) {
			throw new IllegalStateException("The floor found " + key + " " + state + ", not completed");
		}
		return result;
	}

	/**
	 * Check that the floor replays the starter's record byte for byte.
	 * @param id a key the starter completed
	 * @throws SQLException if a statement fails
	 */
	void checkReplays(String id) throws SQLException {
		if (!Arrays.equals(call(id), this.body)) {
			throw new IllegalStateException("The floor does not replay the starter's record of " + id);
		}
	}

}
