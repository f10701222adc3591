package dev.idempotency.store.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;

/**
 * The transitions that finish an attempt: complete, which stores its outcome, inside the
 * caller's transaction when one is active on the store's data source; release and
 * abandon, which give it up, always at once on a connection of the store's own.
 * <p>
 * Each is one conditional {@code UPDATE}. Only when it changes nothing is the row read,
 * to tell a transition this very owner already made (a re-sent one, which succeeds) from
 * ownership lost, and a row that is not a record (an error) from both.
 */
final class FinishTransitions {

	private final JdbcDialect dialect;

	private final StoreConnections connections;

	FinishTransitions(JdbcDialect dialect, StoreConnections connections) {
		this.dialect = dialect;
		this.connections = connections;
	}

	/**
	 * Complete. Inside the caller's transaction, a zombie's completion waits for a
	 * successor's row lock if it must, then changes nothing and returns {@code false}:
	 * its caller then fails, and its transaction rolls back with its own writes. No
	 * statement run there can fail on the store's account: keys are checked before, texts
	 * made storable, and no lock timeout is set.
	 */
	boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
		Params params = owned(key, owner, fence, retention);
		if (result.isFailure()) {
			params.failureType = result.failureType();
			String message = result.failureMessage();
			params.result = (message != null) ? message.getBytes(StandardCharsets.UTF_8) : null;
		}
		else if (result.unreplayableReason() != null) {
			params.reason = result.unreplayableReason();
		}
		else {
			params.result = result.body().clone();
		}
		StoreConnections.SqlWork<Boolean> work = (connection) -> finish(connection, key,
				this.dialect.statements().complete(), params, StoredRow.COMPLETED);
		try {
			return this.connections.joins(this.dialect) ? this.connections.joined(work)
					: this.connections.own(this.dialect, work);
		}
		catch (SQLException ex) {
			throw JdbcFailures.failed("complete", key, this.dialect, ex);
		}
	}

	boolean release(RecordKey key, String owner, long fence, Duration retention) {
		Params params = owned(key, owner, fence, retention);
		try {
			return this.connections.own(this.dialect, (connection) -> finish(connection, key,
					this.dialect.statements().release(), params, StoredRow.FAILED));
		}
		catch (SQLException ex) {
			throw JdbcFailures.failed("release", key, this.dialect, ex);
		}
	}

	CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention) {
		Params params = new Params(this.dialect.storedKey(key));
		params.owner = owner;
		params.retention = JdbcFailures.millis(retention, "retention");
		try {
			JdbcFailures.checkStorable(key, params.key, owner, this.dialect);
			return CompletableFuture.completedFuture(this.connections.own(this.dialect,
					(connection) -> this.dialect.update(connection, this.dialect.statements().abandon(), params) > 0));
		}
		catch (SQLException ex) {
			return CompletableFuture.failedFuture(JdbcFailures.failed("abandon", key, this.dialect, ex));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private Params owned(RecordKey key, String owner, long fence, Duration retention) {
		Params params = new Params(this.dialect.storedKey(key));
		params.owner = owner;
		params.fence = fence;
		params.retention = JdbcFailures.millis(retention, "retention");
		JdbcFailures.checkStorable(key, params.key, owner, this.dialect);
		return params;
	}

	private boolean finish(Connection connection, RecordKey key, NamedSql sql, Params params, String finished)
			throws SQLException {
		if (this.dialect.update(connection, sql, params) > 0) {
			return true;
		}
		StoredRow row = this.dialect.queryRow(connection, this.dialect.statements().read(), params);
		if (row == null) {
			return false;
		}
		String corruption = row.corruption();
		if (corruption != null) {
			throw JdbcFailures.corrupt(key, this.dialect, corruption);
		}
		return !row.isExpired() && row.isOwnedBy(params.owner, params.fence) && finished.equals(row.state());
	}

}
