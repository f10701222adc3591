package dev.idempotency.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RenewalResult;

/**
 * The renew transition, on a connection of the store's own. It never waits for a row
 * lock: the only statement of the store that holds one beyond itself is a completion
 * inside a caller's transaction, which may stay open for as long as that caller likes (a
 * frozen worker between its completion and its commit). A renewal that finds the row
 * locked cannot tell whether its lease still holds, and fails as a store error, which the
 * engine logs before trying again; meanwhile, no other attempt can take the record over
 * either, since an acquire that finds the row locked reports it in progress.
 */
final class RenewTransition {

	private static final int MAX_ROUNDS = 3;

	private final JdbcDialect dialect;

	private final StoreConnections connections;

	RenewTransition(JdbcDialect dialect, StoreConnections connections) {
		this.dialect = dialect;
		this.connections = connections;
	}

	RenewalResult renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
		Params params = new Params(this.dialect.storedKey(key));
		params.owner = owner;
		params.fence = fence;
		params.lease = JdbcFailures.millis(lease, "lease");
		params.retention = JdbcFailures.millis(retention, "retention");
		JdbcFailures.checkStorable(key, params.key, owner, this.dialect);
		try {
			return this.connections.own(this.dialect, (connection) -> rounds(connection, key, params));
		}
		catch (SQLException ex) {
			if (this.dialect.isLockNotAvailable(ex)) {
				throw new IdempotencyStoreException("Could not renew the lease of idempotency record '" + key
						+ "' in table " + this.dialect.table() + ": an open transaction holds its row, most likely "
						+ "completing it, and whether the lease is still this attempt's cannot be told until it ends",
						ex);
			}
			throw JdbcFailures.failed("renew", key, this.dialect, ex);
		}
	}

	private RenewalResult rounds(Connection connection, RecordKey key, Params params) throws SQLException {
		for (int round = 0; round < MAX_ROUNDS; round++) {
			if (this.dialect.update(connection, this.dialect.statements().renew(), params) > 0) {
				return RenewalResult.RENEWED;
			}
			StoredRow row = this.dialect.queryRow(connection, this.dialect.statements().read(), params);
			if (row == null) {
				return RenewalResult.LOST;
			}
			String corruption = row.corruption();
			if (corruption != null) {
				throw JdbcFailures.corrupt(key, this.dialect, corruption);
			}
			if (row.isExpired() || !row.isOwnedBy(params.owner, params.fence)) {
				return RenewalResult.LOST;
			}
			if (!row.isInProgress()) {
				return RenewalResult.FINISHED;
			}
			// Still this attempt's, in progress: changed between the two statements (its
			// own
			// acquire, re-sent), so the renewal runs again
		}
		return RenewalResult.LOST;
	}

}
