package dev.idempotency.store.jdbc;

import java.sql.SQLException;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.RecordKey;

import org.springframework.util.Assert;

/**
 * The store errors of the JDBC store, each naming the record and the table: a statement
 * that failed, a row that is not a record, a key that does not fit.
 */
final class JdbcFailures {

	// Times are kept within what both databases hold (DATETIME ends in 9999)
	private static final long MAX_MILLIS = Duration.ofDays(365_250).toMillis();

	private JdbcFailures() {
	}

	static IdempotencyStoreException failed(String operation, RecordKey key, JdbcDialect dialect, SQLException ex) {
		return new IdempotencyStoreException(dialect.name() + " failed to " + operation + " the idempotency record '"
				+ key + "' in table " + dialect.table() + ": " + ex.getMessage(), ex);
	}

	static IdempotencyStoreException corrupt(RecordKey key, JdbcDialect dialect, String why) {
		return new IdempotencyStoreException("The row of '" + key + "' in table " + dialect.table() + " is not an "
				+ "idempotency record, since " + why + "; it was left as it is: evict it, or repair it");
	}

	static void checkStorable(RecordKey key, String stored, @Nullable String owner, JdbcDialect dialect) {
		String why = dialect.unstorable(stored, owner);
		if (why != null) {
			throw new IdempotencyStoreException(
					"The idempotency record '" + key + "' cannot be stored in table " + dialect.table() + ": " + why);
		}
	}

	/**
	 * Return a duration in whole milliseconds, at most a thousand years.
	 */
	static long millis(Duration duration, String name) {
		Assert.notNull(duration, () -> "'" + name + "' must not be null");
		if (duration.compareTo(Duration.ofMillis(MAX_MILLIS)) > 0) {
			return MAX_MILLIS;
		}
		long millis = duration.toMillis();
		Assert.isTrue(millis > 0, () -> "'" + name + "' must be at least one millisecond");
		return millis;
	}

}
