package dev.idempotency.store.jdbc;

import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RenewalResult;
import dev.idempotency.store.StoredResult;

import org.springframework.util.Assert;

/**
 * {@link IdempotencyStore} in one table of a PostgreSQL, MariaDB or MySQL database, made
 * by the scripts that {@link JdbcSchema} runs. The database is recognised from its
 * metadata on the first transition, not before, so that an application starts while it is
 * unreachable.
 * <p>
 * Every judgement of time (leases, expiry) is made on the database's clock, inside the
 * statements: {@code clock_timestamp()} on PostgreSQL, {@code UTC_TIMESTAMP(6)} on
 * MariaDB and MySQL. Every write is a conditional statement whose {@code WHERE} checks
 * the owner token, the fence and the state it was decided on; one that changes nothing
 * lost a race, and the row is read and the decision made again. No statement of the store
 * raises an error on a key that is already there: a first acquire inserts with
 * {@code ON CONFLICT DO NOTHING} on PostgreSQL, or after a read on MariaDB, on a
 * connection of its own.
 * <p>
 * Acquire, release, renew, read and evict run on connections of the store's own, taken
 * from the data source in auto-commit mode, so that they commit at once even while the
 * calling thread is in a transaction. {@link #complete} joins the Spring-managed
 * transaction of the calling thread when one is active with a connection of this data
 * source bound to it: the completed record then commits or rolls back with the caller's
 * own writes, and {@link #joinsCurrentTransaction()} says so.
 * <p>
 * A row that this store cannot have written (an unknown state, a fence below one) is
 * reported as {@link IdempotencyStoreException} and never overwritten; {@link #evict}
 * deletes it. Every {@link SQLException} is reported as {@link IdempotencyStoreException}
 * with the exception as its cause.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {

	/**
	 * The table of a store created without one.
	 */
	public static final String DEFAULT_TABLE = TableName.DEFAULT;

	private final StoreConnections connections;

	private final TableName table;

	private volatile @Nullable Transitions transitions;

	/**
	 * Create a store in table {@value #DEFAULT_TABLE}.
	 * @param dataSource the database; connections are taken from it on the first
	 * transition
	 */
	public JdbcIdempotencyStore(DataSource dataSource) {
		this(dataSource, DEFAULT_TABLE);
	}

	/**
	 * Create a store.
	 * @param dataSource the database; connections are taken from it on the first
	 * transition
	 * @param table the table, {@code table} or {@code schema.table}: letters, digits and
	 * {@code _}
	 * @throws IllegalArgumentException if the table name is not such an identifier
	 */
	public JdbcIdempotencyStore(DataSource dataSource, String table) {
		this(dataSource, dataSource, table);
	}

	/**
	 * Create a store whose own statements (acquire, renew, release, read, evict, and a
	 * completion outside a transaction) run on connections of a pool of their own, while
	 * a completion still joins a transaction on {@code dataSource}. A caller in a
	 * transaction holds a connection of {@code dataSource} while the store needs another
	 * for its acquire: when as many callers as that pool has connections are in such
	 * transactions at once, every one of them waits for a connection that none gives
	 * back, until the pool's connection timeout. A small pool of the store's own (two to
	 * four connections: its statements are short, and never wait for a lock that a
	 * caller's transaction holds, save the release after a commit whose outcome is
	 * unknown) removes that. It must reach the same database as {@code dataSource}; see
	 * docs/transactions.md for sizing.
	 * @param dataSource the database of the callers' transactions, which a completion
	 * joins
	 * @param ownDataSource the same database, for the store's own statements
	 * @param table the table, {@code table} or {@code schema.table}: letters, digits and
	 * {@code _}
	 * @throws IllegalArgumentException if the table name is not such an identifier
	 */
	public JdbcIdempotencyStore(DataSource dataSource, DataSource ownDataSource, String table) {
		Assert.notNull(dataSource, "'dataSource' must not be null");
		Assert.notNull(ownDataSource, "'ownDataSource' must not be null");
		this.connections = new StoreConnections(dataSource, ownDataSource);
		this.table = TableName.of(table);
	}

	@Override
	public AcquireResult acquire(RecordKey key, AcquireRequest request) {
		Assert.notNull(key, "'key' must not be null");
		Assert.notNull(request, "'request' must not be null");
		return transitions().acquisition().acquire(key, request);
	}

	@Override
	public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
		Assert.notNull(result, "'result' must not be null");
		return transitions().finish().complete(key, owner, fence, result, retention);
	}

	@Override
	public boolean release(RecordKey key, String owner, long fence, Duration retention) {
		return transitions().finish().release(key, owner, fence, retention);
	}

	@Override
	public boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
		return transitions().renewal().renew(key, owner, fence, lease, retention) != RenewalResult.LOST;
	}

	@Override
	public CompletionStage<RenewalResult> renewLease(RecordKey key, String owner, long fence, Duration lease,
			Duration retention) {
		try {
			return CompletableFuture
				.completedFuture(transitions().renewal().renew(key, owner, fence, lease, retention));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention) {
		try {
			return transitions().finish().abandon(key, owner, retention);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Return {@code true} when a Spring-managed read-write transaction is active on the
	 * calling thread with a connection of this store's data source bound to it: a
	 * completion now runs on that connection. On PostgreSQL, a transaction above READ
	 * COMMITTED is not joined (its snapshot hides records acquired after it was taken):
	 * its records complete after its commit, at least once, and the first such
	 * transaction is logged at WARN.
	 * @return whether completing a record now joins the current transaction
	 */
	@Override
	public boolean joinsCurrentTransaction() {
		Transitions transitions = this.transitions;
		// Before the database is recognised, no record of this store is there to complete
		return (transitions != null) ? this.connections.joins(transitions.dialect()) : this.connections.inTransaction();
	}

	@Override
	public Optional<IdempotencyRecord> read(RecordKey key) {
		return transitions().records().read(key);
	}

	@Override
	public boolean evict(RecordKey key) {
		return transitions().records().evict(key);
	}

	/**
	 * Return a check of this store's table, as its health indicator runs it.
	 * @return the check
	 */
	public JdbcTableCheck tableCheck() {
		return new JdbcTableCheck(this.connections.ownDataSource(), this.table);
	}

	@Override
	public String type() {
		return "jdbc";
	}

	/**
	 * Describe where the records are: the database, once recognised, and the table.
	 * @return a description for logs
	 */
	@Override
	public String toString() {
		Transitions transitions = this.transitions;
		return "JDBC store on " + ((transitions != null) ? transitions.dialect().name() : "a database not yet reached")
				+ ", table " + this.table;
	}

	private Transitions transitions() {
		Transitions transitions = this.transitions;
		if (transitions == null) {
			synchronized (this) {
				transitions = this.transitions;
				if (transitions == null) {
					transitions = new Transitions(detect(), this.connections);
					this.transitions = transitions;
				}
			}
		}
		return transitions;
	}

	private JdbcDialect detect() {
		try {
			return JdbcDialect.detect(this.connections.ownDataSource(), this.table, true);
		}
		catch (SQLException | IllegalStateException ex) {
			throw new IdempotencyStoreException("Could not recognise the database of the JDBC idempotency store "
					+ "(table " + this.table + "): " + ex.getMessage(), ex);
		}
	}

	private record Transitions(JdbcDialect dialect, AcquireTransition acquisition, FinishTransitions finish,
			RenewTransition renewal, ReadAndEvict records) {

		Transitions(JdbcDialect dialect, StoreConnections connections) {
			this(dialect, new AcquireTransition(dialect, connections), new FinishTransitions(dialect, connections),
					new RenewTransition(dialect, connections), new ReadAndEvict(dialect, connections));
		}

	}

}
