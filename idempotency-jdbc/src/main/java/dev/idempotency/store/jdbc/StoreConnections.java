package dev.idempotency.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * The connections the store's statements run on: one of the store's own, taken from the
 * data source and in auto-commit mode, so that what it writes commits at once whatever
 * transaction the calling thread is in; or, for a completion, the connection of the
 * caller's Spring-managed transaction on the same data source. The store's own may come
 * from a pool of their own, so that callers holding every connection of the application's
 * pool in their transactions never starve the store's statements.
 */
final class StoreConnections {

	private static final Log logger = LogFactory.getLog(StoreConnections.class);

	private static final int MAX_ATTEMPTS = 10;

	private final DataSource dataSource;

	private final DataSource ownDataSource;

	private final AtomicBoolean warned = new AtomicBoolean();

	private volatile @Nullable Integer defaultIsolation;

	StoreConnections(DataSource dataSource, DataSource ownDataSource) {
		this.dataSource = target(dataSource);
		this.ownDataSource = target(ownDataSource);
	}

	// Spring's transaction managers bind their transactions to this proxy's target, and
	// the proxy hands out the connection of such a transaction: taken as one of the
	// store's own and set to auto-commit, it would commit the caller's writes
	private static DataSource target(DataSource dataSource) {
		if (dataSource instanceof TransactionAwareDataSourceProxy proxy) {
			DataSource target = proxy.getTargetDataSource();
			Assert.notNull(target, "'dataSource' is a TransactionAwareDataSourceProxy without a target");
			return target;
		}
		return dataSource;
	}

	/**
	 * Return the data source of the store's own connections, which the database is
	 * recognised on.
	 */
	DataSource ownDataSource() {
		return this.ownDataSource;
	}

	/**
	 * Return whether a Spring-managed read-write transaction is active on the calling
	 * thread with a connection of this data source bound to it, in that transaction. A
	 * read-only transaction is not joined: the database refuses the completion's update
	 * in it, and the caller wrote nothing in it to commit with the record.
	 */
	boolean inTransaction() {
		return transactionConnection() != null;
	}

	/**
	 * Return whether a completion now joins the caller's transaction:
	 * {@link #inTransaction()}, at an isolation level the dialect joins. A transaction at
	 * another level is not joined, and its records complete after its commit; the first
	 * one is logged at WARN.
	 */
	boolean joins(JdbcDialect dialect) {
		Connection connection = transactionConnection();
		if (connection == null) {
			return false;
		}
		IsolationLevel isolation = new IsolationLevel(connection);
		if (dialect.joinsAt(isolation)) {
			return true;
		}
		if (!this.warned.getAndSet(true)) {
			logger.warn("The JDBC idempotency store (table " + dialect.table() + ") does not join transactions above "
					+ "READ COMMITTED on " + dialect.name() + ", and a caller's runs at "
					+ ((isolation.getAsInt() == Connection.TRANSACTION_SERIALIZABLE) ? "SERIALIZABLE"
							: "REPEATABLE READ")
					+ ": there, a completion's UPDATE would not see a record acquired after the "
					+ "transaction's snapshot. The records of calls in such transactions complete after the commit, at "
					+ "least once as with Redis: a crash between the commit and the completion runs the method again. "
					+ "Run the callers' transactions at READ COMMITTED to complete the records with their writes.");
		}
		return false;
	}

	// A transaction manager without synchronization binds its connection all the same,
	// but says nothing of its transaction: that connection in a read-write transaction
	// is joined too, so that a rollback undoes the completion with the writes (nothing
	// releases the record then: it waits for its lease), where a completion of its own
	// would say done for writes that the rollback undid
	private @Nullable Connection transactionConnection() {
		boolean synchronizing = TransactionSynchronizationManager.isSynchronizationActive();
		if ((!synchronizing || (TransactionSynchronizationManager.isActualTransactionActive()
				&& !TransactionSynchronizationManager.isCurrentTransactionReadOnly()))
				&& TransactionSynchronizationManager.getResource(this.dataSource) instanceof ConnectionHolder holder
				&& holder.getConnectionHandle() != null && inTransaction(holder.getConnection(), synchronizing)) {
			return holder.getConnection();
		}
		return null;
	}

	// A connection bound for the synchronization of a transaction on another data source,
	// used without a transaction of its own, is in auto-commit mode: a completion on it
	// would commit at once, whatever that transaction's outcome
	private static boolean inTransaction(Connection connection, boolean synchronizing) {
		try {
			return !connection.getAutoCommit() && (synchronizing || !connection.isReadOnly());
		}
		catch (SQLException ex) {
			return false;
		}
	}

	/**
	 * Run work on a connection of the store's own: never the one a caller's transaction
	 * holds ({@link DataSourceUtils} is not used), committed statement by statement, run
	 * again when a deadlock or a serialization failure undid it.
	 */
	<T> T own(JdbcDialect dialect, SqlWork<T> work) throws SQLException {
		for (int attempt = 1;; attempt++) {
			try {
				return ownOnce(work);
			}
			catch (SQLException ex) {
				// A deadlock or serialization failure undid the statement alone, in its
				// own
				// transaction: it runs again (MariaDB's gap and insert-intention locks
				// deadlock concurrent inserts of one key)
				if (attempt >= MAX_ATTEMPTS || !dialect.isRetryable(ex)) {
					throw ex;
				}
			}
		}
	}

	private <T> T ownOnce(SqlWork<T> work) throws SQLException {
		try (Connection connection = this.ownDataSource.getConnection()) {
			boolean autoCommit = connection.getAutoCommit();
			if (!autoCommit) {
				connection.setAutoCommit(true);
			}
			try {
				return work.run(connection);
			}
			finally {
				if (!autoCommit) {
					connection.setAutoCommit(false);
				}
			}
		}
	}

	/**
	 * Run work on the connection of the caller's transaction; the caller checked
	 * {@link #inTransaction()}. Never run again on failure: a deadlock rolls the whole
	 * transaction back, and after any error PostgreSQL refuses every statement of it.
	 */
	<T> T joined(SqlWork<T> work) throws SQLException {
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		try {
			return work.run(connection);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

	/**
	 * The isolation level of the caller's transaction: the one it declared, else the
	 * level its connection has by default, read once per store (Spring leaves such a
	 * connection at its pool's level).
	 */
	private final class IsolationLevel implements IntSupplier {

		private final Connection connection;

		IsolationLevel(Connection connection) {
			this.connection = connection;
		}

		@Override
		public int getAsInt() {
			Integer declared = TransactionSynchronizationManager.getCurrentTransactionIsolationLevel();
			if (declared != null) {
				return declared;
			}
			if (!TransactionSynchronizationManager.isSynchronizationActive()) {
				// Whatever it declared is not told without synchronization
				try {
					return this.connection.getTransactionIsolation();
				}
				catch (SQLException ex) {
					return Connection.TRANSACTION_READ_COMMITTED;
				}
			}
			Integer standard = StoreConnections.this.defaultIsolation;
			if (standard == null) {
				try {
					standard = this.connection.getTransactionIsolation();
				}
				catch (SQLException ex) {
					// The transaction fails on this connection anyway
					return Connection.TRANSACTION_READ_COMMITTED;
				}
				StoreConnections.this.defaultIsolation = standard;
			}
			return standard;
		}

	}

	@FunctionalInterface
	interface SqlWork<T> {

		T run(Connection connection) throws SQLException;

	}

}
