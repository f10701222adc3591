package dev.idempotency.store.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

import org.jspecify.annotations.Nullable;

/**
 * The values a statement of the store takes, by the names its {@link NamedSql} uses.
 * Durations are whole milliseconds; the statements add them to the database's clock.
 */
final class Params {

	final String key;

	@Nullable String owner;

	// The owner of the attempt a takeover replaces, as read
	@Nullable String heldBy;

	long fence;

	long newFence;

	boolean takeover;

	long lease;

	long retention;

	byte @Nullable [] fingerprint;

	@Nullable String reason;

	@Nullable String failureType;

	byte @Nullable [] result;

	// Set by an acquire round that found the row of a record no attempt holds locked
	boolean idleLocked;

	Params(String key) {
		this.key = key;
	}

	void bind(PreparedStatement statement, NamedSql sql, JdbcDialect dialect) throws SQLException {
		String[] names = sql.names();
		for (int i = 0; i < names.length; i++) {
			int index = i + 1;
			switch (names[i]) {
				case "key" -> dialect.setText(statement, index, this.key);
				case "owner" -> dialect.setText(statement, index, required(this.owner, "owner"));
				case "held_by" -> dialect.setText(statement, index, required(this.heldBy, "held_by"));
				case "fence" -> statement.setLong(index, this.fence);
				case "new_fence" -> statement.setLong(index, this.newFence);
				case "takeover" -> statement.setBoolean(index, this.takeover);
				case "lease" -> statement.setLong(index, this.lease);
				case "retention" -> statement.setLong(index, this.retention);
				case "fingerprint" -> setBytes(statement, index, this.fingerprint);
				case "reason" -> setString(statement, index, this.reason, dialect);
				case "failure_type" -> setString(statement, index, this.failureType, dialect);
				case "result" -> setBytes(statement, index, this.result);
				default -> throw new IllegalStateException("Unknown parameter :" + names[i] + " in " + sql);
			}
		}
	}

	private static String required(@Nullable String value, String name) {
		if (value == null) {
			throw new IllegalStateException("Parameter :" + name + " has no value");
		}
		return value;
	}

	private static void setBytes(PreparedStatement statement, int index, byte @Nullable [] value) throws SQLException {
		if (value != null) {
			statement.setBytes(index, value);
		}
		else {
			statement.setNull(index, Types.BINARY);
		}
	}

	private static void setString(PreparedStatement statement, int index, @Nullable String value, JdbcDialect dialect)
			throws SQLException {
		if (value != null) {
			statement.setString(index, dialect.storableText(value));
		}
		else {
			statement.setNull(index, Types.VARCHAR);
		}
	}

}
