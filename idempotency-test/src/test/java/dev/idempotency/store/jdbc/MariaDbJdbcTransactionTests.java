package dev.idempotency.store.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.RecordKey;
import dev.idempotency.test.jdbc.DatabaseKind;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The store under the caller's transactions on MariaDB, whose gap and insert-intention
 * locks deadlock concurrent inserts of one key.
 */
class MariaDbJdbcTransactionTests extends JdbcTransactionTests {

	private static final int THREADS = 32;

	MariaDbJdbcTransactionTests() {
		super(DatabaseKind.MARIADB);
	}

	@Override
	void poisonCompletionsOf(String marker) {
		database().jdbc()
			.execute("CREATE TRIGGER poison BEFORE UPDATE ON " + JdbcIdempotencyStore.DEFAULT_TABLE
					+ " FOR EACH ROW BEGIN IF NEW.state = 'COMPLETED' AND NEW.record_key LIKE '%" + marker
					+ "%' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'poisoned completion'; END IF; END");
	}

	@Test
	void thirtyTwoCallersInTransactionsAcquiringOneNewKeyWhileAHolderRollsBackGetExactlyOneOwner() throws Exception {
		long deadlocks = deadlocks();
		// At least five races, and more until one deadlocked (most do)
		for (int round = 0; round < 20 && (round < 5 || deadlocks() == deadlocks); round++) {
			oneRace(key());
		}
		// The shape that deadlocks: the store's statements ran again each time
		System.out.println("MariaDB deadlocks during the races: " + (deadlocks() - deadlocks));
		assertThat(deadlocks()).isGreaterThan(deadlocks);
	}

	private long deadlocks() {
		Long deadlocks = database().jdbc()
			.queryForObject("SELECT variable_value FROM information_schema.global_status "
					+ "WHERE variable_name = 'INNODB_DEADLOCKS'", Long.class);
		return (deadlocks != null) ? deadlocks : 0;
	}

	// A holder inserts the key's row in a transaction and holds it while 32 callers, each
	// in a transaction of its own, acquire that key: their inserts wait on the holder's
	// lock; its rollback hands them shared locks that deadlock as they upgrade. The
	// store's statements run again, and none of it reaches a caller.
	private void oneRace(String key) throws Exception {
		try (var pool = database().newDataSource(THREADS + 2, (dataSource) -> {
		}); var storePool = database().newDataSource(THREADS + 2, (dataSource) -> {
		})) {
			JdbcIdempotencyStore store = new JdbcIdempotencyStore(pool, storePool, JdbcIdempotencyStore.DEFAULT_TABLE);
			RecordKey record = new RecordKey("race", key);
			TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(pool));
			// The holder's row: what a first acquire inserts, for the waiters to queue on
			CompletableFuture<Void> holderInserted = new CompletableFuture<>();
			CompletableFuture<Void> rollBack = new CompletableFuture<>();
			CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> transactions.executeWithoutResult((s) -> {
				new JdbcTemplate(pool).update("INSERT INTO " + JdbcIdempotencyStore.DEFAULT_TABLE
						+ " (record_key, state, fence, owner, takeover, started_at, lease_until, expires_at) VALUES "
						+ "(?, 'IN_PROGRESS', 1, 'holder', FALSE, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), "
						+ "UTC_TIMESTAMP(6) + INTERVAL 1 HOUR)", record.toString().getBytes());
				holderInserted.complete(null);
				rollBack.join();
				s.setRollbackOnly();
			}));
			holderInserted.get(10, TimeUnit.SECONDS);
			CyclicBarrier start = new CyclicBarrier(THREADS);
			ExecutorService threads = Executors.newFixedThreadPool(THREADS);
			List<Future<AcquireResult>> results = new ArrayList<>();
			try {
				for (int i = 0; i < THREADS; i++) {
					String owner = "owner-" + i;
					results.add(threads.submit(() -> transactions.execute((status) -> {
						await().until(() -> {
							start.await();
							return true;
						});
						return store.acquire(record,
								new AcquireRequest(owner, Duration.ofSeconds(30), Duration.ofHours(1), null));
					})));
				}
				// Most callers in their insert, waiting on the holder's lock, or as many
				// as
				// got there in 10 s (a loaded machine): a race either way, and the rounds
				// go on until one deadlocked
				try {
					await().atMost(Duration.ofSeconds(10)).until(() -> lockWaits(pool, record) >= THREADS / 2);
				}
				catch (ConditionTimeoutException ex) {
					// Rolled back with fewer waiters
				}
				rollBack.complete(null);
				holder.get(10, TimeUnit.SECONDS);
				int acquired = 0;
				for (Future<AcquireResult> result : results) {
					if (result.get(60, TimeUnit.SECONDS) instanceof AcquireResult.Acquired) {
						acquired++;
					}
				}
				assertThat(acquired).isOne();
			}
			finally {
				rollBack.complete(null);
				threads.shutdownNow();
			}
		}
	}

	private static int lockWaits(javax.sql.DataSource pool, RecordKey record) {
		Integer waits = new JdbcTemplate(pool)
			.queryForObject("SELECT count(*) FROM information_schema.innodb_lock_waits", Integer.class);
		return (waits != null) ? waits : 0;
	}

}
