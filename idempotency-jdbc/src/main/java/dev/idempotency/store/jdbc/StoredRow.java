package dev.idempotency.store.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;

/**
 * One row of the store's table as a statement read it, with the database's time of that
 * read, so that every judgement of time is the database's. Columns come in the order of
 * {@link JdbcDialect#COLUMNS}, after the time.
 */
record StoredRow(String state, long fence, String owner, boolean takeover, Instant startedAt, Instant leaseUntil,
		@Nullable Instant completedAt, Instant expiresAt, byte @Nullable [] fingerprint, @Nullable String reason,
		@Nullable String failureType, byte @Nullable [] result, Instant now) {

	static final String IN_PROGRESS = "IN_PROGRESS";

	static final String COMPLETED = "COMPLETED";

	static final String FAILED = "FAILED";

	/**
	 * Read the time at {@code column} and the row after it.
	 * @return the row, or {@code null} when its columns are null (no row was joined)
	 */
	static @Nullable StoredRow read(ResultSet rs, int column, JdbcDialect dialect) throws SQLException {
		Instant now = dialect.getInstant(rs, column);
		String state = rs.getString(column + 1);
		if (state == null || now == null) {
			return null;
		}
		long fence = rs.getLong(column + 2);
		String owner = dialect.getText(rs, column + 3);
		boolean takeover = rs.getBoolean(column + 4);
		Instant started = dialect.getInstant(rs, column + 5);
		Instant lease = dialect.getInstant(rs, column + 6);
		Instant completed = dialect.getInstant(rs, column + 7);
		Instant expires = dialect.getInstant(rs, column + 8);
		if (owner == null || started == null || lease == null || expires == null) {
			throw new SQLException("a NOT NULL column of the idempotency table is null; was the table created by "
					+ "the store's schema script?");
		}
		return new StoredRow(state, fence, owner, takeover, started, lease, completed, expires, rs.getBytes(column + 9),
				rs.getString(column + 10), rs.getString(column + 11), rs.getBytes(column + 12), now);
	}

	/**
	 * Return why this row cannot be a record this store wrote, or {@code null} when it
	 * can: such a row is reported, never overwritten.
	 */
	@Nullable String corruption() {
		boolean completed = COMPLETED.equals(this.state);
		if (!completed && !IN_PROGRESS.equals(this.state) && !FAILED.equals(this.state)) {
			return "its state is '" + this.state + "'";
		}
		if (this.fence < 1) {
			return "its fence is " + this.fence;
		}
		if (this.owner.isEmpty()) {
			return "it has no owner";
		}
		if (completed != (this.completedAt != null)) {
			return "it is " + this.state + (completed ? " without" : " with") + " a completion time";
		}
		if (completed && this.failureType != null && (this.failureType.isEmpty() || this.reason != null)) {
			return "its stored failure has " + (this.failureType.isEmpty() ? "no type" : "an unreplayable reason");
		}
		if (completed && this.failureType == null && (this.reason == null) == (this.result == null)) {
			return (this.reason == null) ? "it is COMPLETED with neither a result nor a reason why there is none"
					: "it is COMPLETED with both a result and a reason why there is none";
		}
		return null;
	}

	boolean isExpired() {
		return !this.expiresAt.isAfter(this.now);
	}

	boolean isInProgress() {
		return IN_PROGRESS.equals(this.state);
	}

	boolean isCompleted() {
		return COMPLETED.equals(this.state);
	}

	boolean isFailed() {
		return FAILED.equals(this.state);
	}

	boolean isLeaseLive() {
		return isInProgress() && this.leaseUntil.isAfter(this.now);
	}

	Duration leaseRemaining() {
		return this.leaseUntil.isAfter(this.now) ? Duration.between(this.now, this.leaseUntil) : Duration.ZERO;
	}

	boolean isOwnedBy(String owner, long fence) {
		return this.owner.equals(owner) && this.fence == fence;
	}

	/**
	 * Whether a request's fingerprint shows the key reused for another payload: a failed
	 * attempt left no effect, and a missing fingerprint on either side cannot be
	 * compared.
	 */
	boolean isReusedBy(byte @Nullable [] requested) {
		return !isFailed() && this.fingerprint != null && this.fingerprint.length > 0 && requested != null
				&& requested.length > 0 && !Arrays.equals(this.fingerprint, requested);
	}

	StoredResult storedResult() {
		if (this.failureType != null) {
			return StoredResult.failure(this.failureType,
					(this.result != null) ? new String(this.result, StandardCharsets.UTF_8) : null);
		}
		if (this.reason != null) {
			return new StoredResult(new byte[0], this.reason);
		}
		return StoredResult.of((this.result != null) ? this.result : new byte[0]);
	}

	IdempotencyRecord toRecord(RecordKey key) {
		return new IdempotencyRecord(key, RecordState.valueOf(this.state), this.fence, this.startedAt, this.leaseUntil,
				this.completedAt, isCompleted() && this.failureType == null && this.reason == null, this.expiresAt);
	}

}
