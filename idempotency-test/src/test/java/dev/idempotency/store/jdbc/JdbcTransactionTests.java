package dev.idempotency.store.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.BatchOutcome;
import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.DefaultIdempotentExecutor;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.IdempotencyListener;
import dev.idempotency.engine.OperationSettings;
import dev.idempotency.engine.StoreOperation;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import dev.idempotency.test.jdbc.DatabaseKind;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The JDBC store under the caller's transactions, through the engine: the record commits
 * or rolls back with the business row, a rollback releases it at once, a completion that
 * fails is never retried inside the transaction, the completion's row lock keeps a
 * successor out until the transaction ends, and a small pool of the callers' own never
 * starves the store of connections.
 */
abstract class JdbcTransactionTests {

	private static final String NAME = "JdbcTransactionTests.pay";

	private final DatabaseKind kind;

	private StoreDatabase database;

	private HikariDataSource storePool;

	private final List<IdempotencyEngine> engines = new ArrayList<>();

	private final List<StoreOperation> storeOperations = new CopyOnWriteArrayList<>();

	private final AtomicInteger runs = new AtomicInteger();

	JdbcTransactionTests(DatabaseKind kind) {
		this.kind = kind;
	}

	@BeforeEach
	void createDatabase() {
		this.database = StoreDatabase.create(this.kind, 8);
		this.database.jdbc().execute("CREATE TABLE payment (id VARCHAR(100) NOT NULL)");
	}

	@AfterEach
	void closeDatabase() {
		this.engines.forEach(IdempotencyEngine::close);
		if (this.storePool != null) {
			this.storePool.close();
		}
		this.database.close();
	}

	@Test
	void commitStoresTheRecordWithTheBusinessRow() {
		IdempotentExecutor executor = executor(store(), Duration.ofSeconds(30));
		String key = key();
		String paid = transactions().execute((status) -> pay(executor, key));
		assertThat(paid).isEqualTo("paid " + key);
		assertThat(state(key)).isEqualTo(RecordState.COMPLETED);
		assertThat(pay(executor, key)).isEqualTo("paid " + key);
		assertThat(this.runs).hasValue(1);
		assertThat(payments(key)).isOne();
	}

	@Test
	void rollbackAfterTheRecordCompletedInsideTheTransactionReleasesItAtOnce() {
		IdempotentExecutor executor = executor(store(), Duration.ofSeconds(30));
		String key = key();
		transactions().executeWithoutResult((status) -> {
			pay(executor, key);
			status.setRollbackOnly();
		});
		assertThat(payments(key)).isZero();
		// Released, not left in progress for its 30 s lease
		assertThat(state(key)).isEqualTo(RecordState.FAILED);
		String paid = transactions().execute((status) -> pay(executor, key));
		assertThat(paid).isEqualTo("paid " + key);
		assertThat(this.runs).hasValue(2);
		assertThat(payments(key)).isOne();
	}

	@Test
	void rollbackAfterABatchCompletedInsideTheTransactionReleasesEachRecord() {
		IdempotentExecutor executor = executor(store(), Duration.ofSeconds(30));
		List<String> keys = List.of(key(), key());
		transactions().executeWithoutResult((status) -> {
			executor.executeAll(NAME, keys, (item) -> item, String.class, (item) -> {
				this.runs.incrementAndGet();
				this.database.jdbc().update("INSERT INTO payment (id) VALUES (?)", item);
				return "paid " + item;
			});
			status.setRollbackOnly();
		});
		assertThat(keys).allSatisfy((key) -> {
			assertThat(payments(key)).isZero();
			assertThat(state(key)).isEqualTo(RecordState.FAILED);
		});
	}

	@Test
	void exceptionAfterTheCallRollsBackAndReleases() {
		IdempotentExecutor executor = executor(store(), Duration.ofSeconds(30));
		String key = key();
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> transactions().executeWithoutResult((status) -> {
				pay(executor, key);
				throw new IllegalStateException("after the call");
			}));
		assertThat(state(key)).isEqualTo(RecordState.FAILED);
		assertThat(payments(key)).isZero();
	}

	@Test
	void completionThatFailsInsideTheTransactionIsNotRetriedThereAndRollsItBack() {
		poisonCompletionsOf("poison");
		IdempotentExecutor executor = executor(store(), Duration.ofSeconds(30));
		String key = "poison-" + key();
		long started = System.nanoTime();
		assertThatExceptionOfType(IdempotencyCompletionException.class)
			.isThrownBy(() -> transactions().executeWithoutResult((status) -> pay(executor, key)))
			.withMessageContaining("the record is released after the rollback")
			.withMessageNotContaining("the record stays IN_PROGRESS")
			.havingRootCause()
			.withMessageContaining("poisoned completion");
		// One completion, not retries up to the 30 s lease inside an aborted transaction
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
		assertThat(this.storeOperations.stream().filter(StoreOperation.COMPLETE::equals)).hasSize(1);
		assertThat(payments(key)).isZero();
		assertThat(state(key)).isEqualTo(RecordState.FAILED);
	}

	@Test
	void batchCompletionThatFailsInsideTheTransactionReachesTheCallerAndReleasesEveryItem() {
		poisonCompletionsOf("poison");
		IdempotentExecutor executor = executor(store(), Duration.ofSeconds(30));
		List<String> keys = List.of(key(), "poison-" + key(), key());
		long started = System.nanoTime();
		assertThatExceptionOfType(IdempotencyCompletionException.class)
			.isThrownBy(() -> transactions().executeWithoutResult((status) -> payAll(executor, keys)))
			.havingRootCause()
			.withMessageContaining("poisoned completion");
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
		// The batch's one completion, never item by item inside the transaction
		assertThat(this.storeOperations.stream().filter(StoreOperation.COMPLETE::equals)).hasSize(1);
		assertThat(this.runs).hasValue(3);
		assertThat(keys).allSatisfy((key) -> {
			assertThat(payments(key)).isZero();
			assertThat(state(key)).isEqualTo(RecordState.FAILED);
		});
		List<String> healthy = List.of(keys.get(0), keys.get(2));
		transactions().executeWithoutResult((status) -> payAll(executor, healthy));
		assertThat(healthy).allSatisfy((key) -> {
			assertThat(payments(key)).isOne();
			assertThat(state(key)).isEqualTo(RecordState.COMPLETED);
		});
	}

	@Test
	void batchItemThatLostItsRecordInsideTheTransactionRollsTheWholeBatchBack() {
		IdempotentExecutor executor = executor(store(), Duration.ofSeconds(30));
		JdbcIdempotencyStore successor = store();
		List<String> keys = List.of(key(), "taken-over-" + key());
		assertThatExceptionOfType(IdempotencyLockLostException.class).isThrownBy(() -> transactions()
			.executeWithoutResult((status) -> executor.executeAll(NAME, keys, (item) -> item, String.class, (item) -> {
				this.runs.incrementAndGet();
				this.database.jdbc().update("INSERT INTO payment (id) VALUES (?)", item);
				if (item.startsWith("taken-over-")) {
					RecordKey record = new RecordKey(NAME, item);
					successor.evict(record);
					successor.acquire(record,
							new AcquireRequest("successor", Duration.ofSeconds(30), Duration.ofHours(1), null));
				}
				return "paid " + item;
			})));
		assertThat(keys).allSatisfy((key) -> assertThat(payments(key)).isZero());
		assertThat(state(keys.get(0))).isEqualTo(RecordState.FAILED);
		assertThat(state(keys.get(1))).isEqualTo(RecordState.IN_PROGRESS);
	}

	@Test
	void repeatableReadCallerWhoseSnapshotPredatesTheAcquireEndsWithItsRowAndItsRecordConsistent() {
		JdbcIdempotencyStore store = store();
		IdempotentExecutor executor = executor(store, Duration.ofSeconds(30));
		String key = key();
		TransactionTemplate transactions = transactions();
		transactions.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
		AtomicBoolean joined = new AtomicBoolean();
		String paid = transactions.execute((status) -> {
			this.database.jdbc().queryForObject("SELECT count(*) FROM payment", Integer.class);
			String value = pay(executor, key);
			joined.set(store.joinsCurrentTransaction());
			return value;
		});
		assertThat(paid).isEqualTo("paid " + key);
		assertThat(joined.get()).isEqualTo(joinsRepeatableRead());
		assertThat(payments(key)).isOne();
		assertThat(state(key)).isEqualTo(RecordState.COMPLETED);
		assertThat(pay(executor, key)).isEqualTo("paid " + key);
		assertThat(this.runs).hasValue(1);
		assertThat(payments(key)).isOne();
	}

	@Test
	void transactionOpenPastTheLeaseAfterTheCallKeepsASuccessorOutUntilItCommits() throws Exception {
		Duration lease = Duration.ofSeconds(1);
		IdempotentExecutor executor = executor(store(), lease);
		String key = key();
		CountDownLatch commit = new CountDownLatch(1);
		CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> transactions().execute((status) -> {
			String paid = pay(executor, key);
			await().atMost(Duration.ofSeconds(30)).until(() -> commit.await(0, TimeUnit.SECONDS));
			return paid;
		}));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.runs.get() == 1);
		// Three leases long, a successor is refused: the row lock of the completion holds
		await().pollDelay(Duration.ofSeconds(3))
			.atMost(Duration.ofSeconds(20))
			.until(() -> refused(() -> pay(executor, key)));
		commit.countDown();
		assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("paid " + key);
		assertThat(pay(executor, key)).isEqualTo("paid " + key);
		assertThat(this.runs).hasValue(1);
		assertThat(payments(key)).isOne();
	}

	@Test
	void renewalAndAcquireAnswerAtOnceWhileACallersTransactionHoldsTheCompletedRow() throws Exception {
		JdbcIdempotencyStore store = store();
		RecordKey key = new RecordKey(NAME, key());
		Duration lease = Duration.ofSeconds(30);
		AcquireResult.Acquired acquired = (AcquireResult.Acquired) store.acquire(key,
				new AcquireRequest("owner-1", lease, Duration.ofHours(1), null));
		CountDownLatch completed = new CountDownLatch(1);
		CountDownLatch commit = new CountDownLatch(1);
		CompletableFuture<Boolean> worker = CompletableFuture.supplyAsync(() -> transactions().execute((status) -> {
			boolean done = store.complete(key, "owner-1", acquired.fence(), StoredResult.of(new byte[] { 1 }),
					Duration.ofHours(1));
			completed.countDown();
			await().atMost(Duration.ofSeconds(30)).until(() -> commit.await(0, TimeUnit.SECONDS));
			return done;
		}));
		assertThat(completed.await(10, TimeUnit.SECONDS)).isTrue();
		long started = System.nanoTime();
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> store.renew(key, "owner-1", acquired.fence(), lease, Duration.ofHours(1)))
			.withMessageContaining("open transaction holds its row");
		assertThat(store.acquire(key, new AcquireRequest("owner-2", lease, Duration.ofHours(1), null)))
			.isInstanceOf(AcquireResult.InProgress.class);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
		commit.countDown();
		assertThat(worker.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(store.read(key)).map(IdempotencyRecord::state).hasValue(RecordState.COMPLETED);
	}

	@Test
	void sixteenCallersInTransactionsOnAPoolOfFourWithAStorePoolOfTwoNeitherDeadlockNorTimeOut() throws Exception {
		try (HikariDataSource callers = this.database.newDataSource(4, (pool) -> pool.setConnectionTimeout(5_000))) {
			this.storePool = this.database.newDataSource(2, (pool) -> pool.setConnectionTimeout(5_000));
			JdbcIdempotencyStore store = new JdbcIdempotencyStore(callers, this.storePool,
					JdbcIdempotencyStore.DEFAULT_TABLE);
			IdempotentExecutor executor = executor(store, Duration.ofSeconds(30));
			TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(callers));
			JdbcTemplate jdbc = new JdbcTemplate(callers);
			int callersCount = 16;
			int rounds = 10;
			ExecutorService threads = Executors.newFixedThreadPool(callersCount);
			try {
				long started = System.nanoTime();
				List<Future<?>> calls = new ArrayList<>();
				for (int i = 0; i < callersCount; i++) {
					String prefix = key() + "-" + i;
					calls.add(threads.submit(() -> {
						for (int round = 0; round < rounds; round++) {
							String key = prefix + "-" + round;
							// Twice each key: once to run, once to replay
							for (int call = 0; call < 2; call++) {
								transactions
									.executeWithoutResult((status) -> executor.execute(NAME, key, String.class, () -> {
										this.runs.incrementAndGet();
										jdbc.update("INSERT INTO payment (id) VALUES (?)", key);
										return "paid " + key;
									}));
							}
						}
						return null;
					}));
				}
				for (Future<?> call : calls) {
					call.get(60, TimeUnit.SECONDS);
				}
				Duration took = Duration.ofNanos(System.nanoTime() - started);
				System.out
					.println(this.kind + ": " + (callersCount * rounds * 2) + " transactional calls of " + callersCount
							+ " callers on a pool of 4 and a store pool of 2 took " + took.toMillis() + " ms");
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(this.runs).hasValue(callersCount * rounds);
			assertThat(this.database.jdbc().queryForObject("SELECT count(*) FROM payment", Integer.class))
				.isEqualTo(callersCount * rounds);
		}
	}

	/**
	 * Return whether the store joins a transaction at REPEATABLE READ on this database.
	 */
	boolean joinsRepeatableRead() {
		return true;
	}

	/**
	 * Make every completion of a key containing a marker fail inside the caller's
	 * transaction, as a trigger or a constraint of the application's might.
	 */
	abstract void poisonCompletionsOf(String marker);

	StoreDatabase database() {
		return this.database;
	}

	JdbcIdempotencyStore store() {
		return new JdbcIdempotencyStore(this.database.dataSource());
	}

	TransactionTemplate transactions() {
		return new TransactionTemplate(new DataSourceTransactionManager(this.database.dataSource()));
	}

	IdempotentExecutor executor(JdbcIdempotencyStore store, Duration lease) {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		IdempotencyEngine engine = new IdempotencyEngine(store,
				new IdempotencyDefaults(
						new OperationSettings(lease, Duration.ofHours(1), OnInProgress.REJECT, Duration.ofSeconds(1)),
						standard.onStoreFailure(), standard.maxKeyLength(), standard.maxResultSize(), Map.of()),
				List.of(new IdempotencyListener() {

					@Override
					public void onStoreOperation(StoreOperation operation, String store, long nanos,
							boolean succeeded) {
						JdbcTransactionTests.this.storeOperations.add(operation);
					}

				}));
		this.engines.add(engine);
		return new DefaultIdempotentExecutor(engine, new JacksonResultCodec(), new JacksonPayloadFingerprinter());
	}

	private String pay(IdempotentExecutor executor, String key) {
		return executor.execute(NAME, key, String.class, () -> {
			this.runs.incrementAndGet();
			this.database.jdbc().update("INSERT INTO payment (id) VALUES (?)", key);
			return "paid " + key;
		});
	}

	private List<BatchOutcome<String, String>> payAll(IdempotentExecutor executor, List<String> keys) {
		return executor.executeAll(NAME, keys, (item) -> item, String.class, (item) -> {
			this.runs.incrementAndGet();
			this.database.jdbc().update("INSERT INTO payment (id) VALUES (?)", item);
			return "paid " + item;
		});
	}

	private static boolean refused(Runnable call) {
		try {
			CompletableFuture.runAsync(call).join();
			return false;
		}
		catch (RuntimeException ex) {
			return ex.getCause() instanceof IdempotencyInProgressException;
		}
	}

	int payments(String key) {
		return this.database.jdbc().queryForObject("SELECT count(*) FROM payment WHERE id = ?", Integer.class, key);
	}

	RecordState state(String key) {
		return store().read(new RecordKey(NAME, key)).map(IdempotencyRecord::state).orElse(null);
	}

	static String key() {
		return UUID.randomUUID().toString();
	}

}
