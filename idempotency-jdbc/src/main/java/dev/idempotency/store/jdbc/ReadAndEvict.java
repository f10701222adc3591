package dev.idempotency.store.jdbc;

import java.sql.SQLException;
import java.util.Optional;

import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;

/**
 * Reads a record and deletes its row, for operators and the endpoint rather than for
 * attempts: evict also deletes a row that is not a record, or one that has expired.
 */
final class ReadAndEvict {

	private final JdbcDialect dialect;

	private final StoreConnections connections;

	ReadAndEvict(JdbcDialect dialect, StoreConnections connections) {
		this.dialect = dialect;
		this.connections = connections;
	}

	Optional<IdempotencyRecord> read(RecordKey key) {
		Params params = params(key);
		try {
			StoredRow row = this.connections.own(this.dialect,
					(connection) -> this.dialect.queryRow(connection, this.dialect.statements().read(), params));
			if (row == null) {
				return Optional.empty();
			}
			String corruption = row.corruption();
			if (corruption != null) {
				throw JdbcFailures.corrupt(key, this.dialect, corruption);
			}
			return row.isExpired() ? Optional.empty() : Optional.of(row.toRecord(key));
		}
		catch (SQLException ex) {
			throw JdbcFailures.failed("read", key, this.dialect, ex);
		}
	}

	/**
	 * Delete the row; tell whether it held a record that had not expired.
	 */
	boolean evict(RecordKey key) {
		Params params = params(key);
		DialectStatements statements = this.dialect.statements();
		try {
			return this.connections.own(this.dialect, (connection) -> {
				if (this.dialect.update(connection, statements.deleteLive(), params) > 0) {
					return true;
				}
				this.dialect.update(connection, statements.delete(), params);
				return false;
			});
		}
		catch (SQLException ex) {
			throw JdbcFailures.failed("evict", key, this.dialect, ex);
		}
	}

	private Params params(RecordKey key) {
		Params params = new Params(this.dialect.storedKey(key));
		JdbcFailures.checkStorable(key, params.key, null, this.dialect);
		return params;
	}

}
