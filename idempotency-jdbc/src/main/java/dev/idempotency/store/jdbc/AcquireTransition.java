package dev.idempotency.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.RecordKey;

/**
 * The acquire transition: insert a new record, or read the row there is and decide on it
 * as the other stores do, writing a decision with a statement whose {@code WHERE} holds
 * what the decision was based on. When it changes nothing, another statement moved first:
 * the row is read again and the decision made again, a bounded number of times. So two
 * acquires can never both take over one expired attempt: the second finds the fence
 * already raised.
 */
final class AcquireTransition {

	private static final int MAX_ROUNDS = 16;

	private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private static final AcquireResult NEW = new AcquireResult.Acquired(1, false);

	private static final AcquireResult KEY_REUSED = new AcquireResult.KeyReused();

	private final JdbcDialect dialect;

	private final StoreConnections connections;

	AcquireTransition(JdbcDialect dialect, StoreConnections connections) {
		this.dialect = dialect;
		this.connections = connections;
	}

	AcquireResult acquire(RecordKey key, AcquireRequest request) {
		Params params = new Params(this.dialect.storedKey(key));
		params.owner = request.owner();
		params.lease = JdbcFailures.millis(request.lease(), "lease");
		params.retention = JdbcFailures.millis(request.retention(), "retention");
		byte[] fingerprint = request.fingerprint();
		// Like the other stores, an empty fingerprint is no fingerprint
		params.fingerprint = (fingerprint != null && fingerprint.length > 0) ? fingerprint.clone() : null;
		JdbcFailures.checkStorable(key, params.key, params.owner, this.dialect);
		try {
			return this.connections.own(this.dialect, (connection) -> rounds(connection, key, params));
		}
		catch (SQLException ex) {
			throw JdbcFailures.failed("acquire", key, this.dialect, ex);
		}
	}

	private AcquireResult rounds(Connection connection, RecordKey key, Params params) throws SQLException {
		long pause = FIRST_PAUSE_NANOS;
		for (int round = 0; round < MAX_ROUNDS; round++) {
			params.idleLocked = false;
			AcquireResult result = round(connection, key, params);
			if (result != null) {
				return result;
			}
			if (params.idleLocked) {
				if (round == MAX_ROUNDS - 1) {
					return new AcquireResult.InProgress(params.fence, Duration.ZERO);
				}
				LockSupport.parkNanos(this, pause);
				pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
			}
		}
		throw new IdempotencyStoreException("The row of '" + key + "' in table " + this.dialect.table()
				+ " changed under each of " + MAX_ROUNDS + " attempts to acquire it");
	}

	private @Nullable AcquireResult round(Connection connection, RecordKey key, Params params) throws SQLException {
		AcquireStart start = this.dialect.start(connection, params);
		if (start instanceof AcquireStart.Inserted) {
			return NEW;
		}
		if (!(start instanceof AcquireStart.Found found)) {
			return null;
		}
		StoredRow row = found.row();
		String corruption = row.corruption();
		if (corruption != null) {
			throw JdbcFailures.corrupt(key, this.dialect, corruption);
		}
		DialectStatements statements = this.dialect.statements();
		params.fence = row.fence();
		if (row.isExpired()) {
			// Gone, as if there were no row: the record starts again from fence 1
			return claim(connection, statements.claimExpired(), params, row, 1, false);
		}
		if (row.isReusedBy(params.fingerprint)) {
			return KEY_REUSED;
		}
		if (row.isCompleted()) {
			return new AcquireResult.Completed(row.fence(), row.storedResult());
		}
		if (row.isInProgress() && row.owner().equals(params.owner)) {
			// A re-sent acquire finds its own attempt: same fence and takeover mark,
			// lease
			// started again
			return claim(connection, statements.reclaim(), params, row, row.fence(), row.takeover());
		}
		if (row.isLeaseLive()) {
			return new AcquireResult.InProgress(row.fence(), row.leaseRemaining());
		}
		params.heldBy = row.owner();
		return row.isInProgress() ? claim(connection, statements.claimTakeover(), params, row, row.fence() + 1, true)
				: claim(connection, statements.claimFailed(), params, row, row.fence() + 1, false);
	}

	/**
	 * Write a decision. A row locked by an open transaction is being moved on by a
	 * completion inside a caller's transaction (the only statement of the store that
	 * holds a row lock for longer than itself): the record is reported in progress rather
	 * than waited for, however long that transaction stays open. A row whose record no
	 * attempt holds (expired, or failed) is read again after a short pause instead.
	 */
	private @Nullable AcquireResult claim(Connection connection, NamedSql sql, Params params, StoredRow row, long fence,
			boolean takeover) throws SQLException {
		params.newFence = fence;
		params.takeover = takeover;
		try {
			return (this.dialect.update(connection, sql, params) > 0) ? new AcquireResult.Acquired(fence, takeover)
					: null;
		}
		catch (SQLException ex) {
			if (!this.dialect.isLockNotAvailable(ex)) {
				throw ex;
			}
			if (row.isExpired() || row.isFailed()) {
				// No attempt holds it: the cleanup deleting it, another acquire taking
				// it, for an instant. Read again after a pause, rather than report in
				// progress a record that no attempt holds, with a lease long gone
				params.idleLocked = true;
				return null;
			}
			return new AcquireResult.InProgress(row.fence(), row.leaseRemaining());
		}
	}

}
