package dev.idempotency.store.jdbc;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An adversary's cases: data sources and transactions the store may be given that are not
 * the plain pool and read-write transaction of its other tests. Each database's test
 * class runs them on a database of its own.
 */
abstract class JdbcStoreAdversarialTests {

	static final Duration LEASE = Duration.ofSeconds(30);

	static final Duration RETENTION = Duration.ofMinutes(10);

	private static StoreDatabase database;

	JdbcIdempotencyStore store;

	RecordKey key;

	static void createDatabase(StoreDatabase created) {
		database = created;
		database.jdbc().execute("CREATE TABLE adversary_row (id VARCHAR(100) PRIMARY KEY)");
	}

	@AfterAll
	static void closeDatabase() {
		database.close();
	}

	@BeforeEach
	void createStore() {
		this.store = new JdbcIdempotencyStore(database.dataSource());
		this.key = new RecordKey("adversary", UUID.randomUUID().toString());
	}

	static StoreDatabase database() {
		return database;
	}

	// Spring's transaction manager unwraps this proxy and binds its transaction to the
	// target; a store given the proxy must do as much, or its own connections are the
	// caller's, and setting them to auto-commit commits the caller's transaction
	@Test
	void aStoreOnATransactionAwareProxyNeitherCommitsNorMissesTheCallersTransaction() {
		TransactionAwareDataSourceProxy proxy = new TransactionAwareDataSourceProxy(database.dataSource());
		JdbcIdempotencyStore store = new JdbcIdempotencyStore(proxy);
		String id = "proxied-" + this.key.key();
		new TransactionTemplate(new DataSourceTransactionManager(proxy)).executeWithoutResult((status) -> {
			new JdbcTemplate(proxy).update("INSERT INTO adversary_row (id) VALUES (?)", id);
			store.acquire(this.key, request("a"));
			assertThat(store.joinsCurrentTransaction()).isTrue();
			assertThat(store.complete(this.key, "a", 1, StoredResult.of(bytes("done")), RETENTION)).isTrue();
			status.setRollbackOnly();
		});
		assertThat(adversaryRows(id)).isZero();
		assertThat(this.store.read(this.key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
	}

	// A read-only transaction refuses the completion's UPDATE (PostgreSQL: 25006); the
	// caller cannot have written in it, so the record completes after it, as it would
	// with a store that does not join
	@Test
	void aReadOnlyTransactionIsNotJoined() {
		this.store.acquire(this.key, request("a"));
		TransactionTemplate readOnly = transactions(database.dataSource());
		readOnly.setReadOnly(true);
		readOnly.executeWithoutResult((status) -> {
			database.jdbc().queryForObject("SELECT count(*) FROM adversary_row", Integer.class);
			assertThat(this.store.joinsCurrentTransaction()).isFalse();
			assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(bytes("done")), RETENTION)).isTrue();
		});
		assertThat(this.store.read(this.key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
	}

	// A transaction on another data source, in which the store's data source was used
	// without one: Spring binds that connection, in auto-commit mode, to the thread for
	// the transaction's synchronization. A completion on it would commit at once, while
	// the engine, told it joins, would not wait for the transaction's outcome
	@Test
	void aConnectionBoundWithoutATransactionOfItsOwnIsNotJoined() {
		try (HikariDataSource other = database.newDataSource(1, (config) -> {
		})) {
			transactions(other).executeWithoutResult((status) -> {
				database.jdbc().queryForObject("SELECT count(*) FROM adversary_row", Integer.class);
				assertThat(this.store.joinsCurrentTransaction()).isFalse();
			});
		}
	}

	// Instances starting together each run the schema script: PostgreSQL's IF NOT EXISTS
	// checks the catalog before it inserts, so two creations of one table or index can
	// both pass it, and the second fails on a unique index of the catalog (23505)
	@Test
	void instancesStartingTogetherAllCreateTheSchema() throws Exception {
		try (HikariDataSource pool = database.newDataSource(8, (config) -> {
		})) {
			for (int round = 0; round < 10; round++) {
				String table = "together_" + round + "_" + UUID.randomUUID().toString().substring(0, 8);
				CountDownLatch start = new CountDownLatch(1);
				List<CompletableFuture<Void>> instances = new ArrayList<>();
				for (int i = 0; i < 8; i++) {
					instances.add(CompletableFuture.runAsync(() -> {
						await(start);
						JdbcSchema.initialize(pool, table);
					}, Executors.newSingleThreadExecutor()));
				}
				start.countDown();
				for (CompletableFuture<Void> instance : instances) {
					instance.get(60, TimeUnit.SECONDS);
				}
				new JdbcIdempotencyStore(pool, table).acquire(this.key, request("a"));
			}
		}
	}

	static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, LEASE, RETENTION, null);
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	static TransactionTemplate transactions(javax.sql.DataSource dataSource) {
		return new TransactionTemplate(new DataSourceTransactionManager(dataSource));
	}

	static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(20, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	static int adversaryRows(String id) {
		return database.jdbc().queryForObject("SELECT count(*) FROM adversary_row WHERE id = ?", Integer.class, id);
	}

}
