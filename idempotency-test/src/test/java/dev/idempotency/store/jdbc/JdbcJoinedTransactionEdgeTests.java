package dev.idempotency.store.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.BatchOutcome;
import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.DefaultIdempotentExecutor;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.Operation;
import dev.idempotency.engine.OperationSettings;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.test.jdbc.DatabaseKind;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.ResolvableType;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Shapes of the caller's transaction that the joined completion must survive: a duplicate
 * of a call inside the very transaction that ran it, a {@code NESTED} scope rolled back
 * after the call and the retry in the same transaction, asynchronous methods whose stage
 * ends inside the caller's transaction or inside another one.
 */
abstract class JdbcJoinedTransactionEdgeTests {

	private static final String NAME = "JdbcJoinedTransactionEdgeTests.pay";

	private final DatabaseKind kind;

	private StoreDatabase database;

	private final List<IdempotencyEngine> engines = new ArrayList<>();

	private final AtomicInteger runs = new AtomicInteger();

	JdbcJoinedTransactionEdgeTests(DatabaseKind kind) {
		this.kind = kind;
	}

	@BeforeEach
	void createDatabase() {
		this.database = StoreDatabase.create(this.kind, 8);
		this.database.jdbc().execute("CREATE TABLE edge_payment (id VARCHAR(100) NOT NULL)");
	}

	@AfterEach
	void closeDatabase() {
		this.engines.forEach(IdempotencyEngine::close);
		this.database.close();
	}

	// Two deliveries of one message in one batch transaction (a producer's retry), or a
	// retry inside the transaction: the second replays what the transaction commits,
	// as with the stores that do not join, instead of refusing it as in progress
	@Test
	void duplicateInsideTheTransactionThatRanTheCallReplaysIt() {
		IdempotentExecutor executor = executor(OnInProgress.REJECT);
		String key = key();
		List<String> paid = transactions().execute((status) -> List.of(pay(executor, key), pay(executor, key)));
		assertThat(paid).containsExactly("paid " + key, "paid " + key);
		assertThat(this.runs).hasValue(1);
		assertThat(payments(key)).isOne();
		assertThat(state(key)).isEqualTo(RecordState.COMPLETED);
	}

	// The same for a batch: an item delivered again in a later batch of the same
	// transaction replays what the first batch will commit
	@Test
	void batchDuplicateInsideTheTransactionThatRanTheItemReplaysIt() {
		IdempotentExecutor executor = executor(OnInProgress.REJECT);
		String key = key();
		List<String> keys = List.of(key, key());
		List<List<BatchOutcome<String, String>>> batches = transactions()
			.execute((status) -> List.of(payAll(executor, keys), payAll(executor, keys)));
		assertThat(batches.get(1)).allSatisfy((outcome) -> assertThat(outcome).isInstanceOf(BatchOutcome.Replayed.class)
			.extracting((replayed) -> ((BatchOutcome.Replayed<String, String>) replayed).result())
			.isEqualTo("paid " + outcome.item()));
		assertThat(this.runs).hasValue(2);
		assertThat(payments(key)).isOne();
	}

	// With WAIT, the duplicate would wait for its own transaction to end, which never
	// comes before the wait times out
	@Test
	void duplicateInsideTheTransactionThatRanTheCallDoesNotWaitForItself() {
		IdempotentExecutor executor = executor(OnInProgress.WAIT);
		String key = key();
		long started = System.nanoTime();
		List<String> paid = transactions().execute((status) -> List.of(pay(executor, key), pay(executor, key)));
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
		assertThat(paid).containsExactly("paid " + key, "paid " + key);
		assertThat(this.runs).hasValue(1);
		assertThat(payments(key)).isOne();
	}

	// The usual retry shape: a NESTED scope around the call, rolled back after it, then
	// the call again in the same transaction. The rollback to the savepoint undid the
	// completion and the business row: the retry must never replay the value it undid (a
	// lost effect). Its record is still in progress in the database until the transaction
	// ends (MariaDB keeps the undone completion's row lock until then), so the retry is
	// refused, and the record released once the transaction has ended
	@Test
	void retryAfterANestedRollbackInTheSameTransactionNeverReplaysTheUndoneValue() {
		IdempotentExecutor executor = executor(OnInProgress.REJECT);
		String key = key();
		TransactionTemplate nested = transactions();
		nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
		transactions().executeWithoutResult((status) -> {
			nested.executeWithoutResult((inner) -> {
				pay(executor, key);
				inner.setRollbackOnly();
			});
			assertThatExceptionOfType(IdempotencyInProgressException.class).isThrownBy(() -> pay(executor, key));
		});
		assertThat(this.runs).hasValue(1);
		assertThat(payments(key)).isZero();
		assertThat(state(key)).isEqualTo(RecordState.FAILED);
		assertThat(pay(executor, key)).isEqualTo("paid " + key);
		assertThat(this.runs).hasValue(2);
		assertThat(payments(key)).isOne();
	}

	// A NESTED rollback after the call, the outer transaction committing without a retry:
	// the record is not left IN_PROGRESS for its lease (30 s here)
	@Test
	void nestedRollbackAfterTheCallReleasesTheRecordAtOnce() {
		IdempotentExecutor executor = executor(OnInProgress.REJECT);
		String key = key();
		TransactionTemplate nested = transactions();
		nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
		transactions().executeWithoutResult((status) -> nested.executeWithoutResult((inner) -> {
			pay(executor, key);
			inner.setRollbackOnly();
		}));
		assertThat(payments(key)).isZero();
		assertThat(state(key)).isEqualTo(RecordState.FAILED);
		assertThat(pay(executor, key)).isEqualTo("paid " + key);
		assertThat(this.runs).hasValue(2);
		assertThat(payments(key)).isOne();
	}

	// A synchronization ordered before the record's fails after the commit: the record
	// committed with the transaction, so the log must not claim that it was released
	// for the next delivery to run the method again (a duplicate replays it)
	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void commitWhoseEarlierSynchronizationFailsAfterItSaysTheRecordStaysDone(CapturedOutput output) {
		IdempotentExecutor executor = executor(OnInProgress.REJECT);
		String key = key();
		assertThatIllegalStateException().isThrownBy(() -> transactions().executeWithoutResult((status) -> {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					throw new IllegalStateException("a producer's commit failed");
				}

			});
			pay(executor, key);
		})).withMessage("a producer's commit failed");
		assertThat(state(key)).isEqualTo(RecordState.COMPLETED);
		assertThat(output).doesNotContain("so that the next delivery runs the method again")
			.doesNotContain("could not release its record")
			.contains("duplicates replay the record all the same");
		assertThat(pay(executor, key)).isEqualTo("paid " + key);
		assertThat(this.runs).hasValue(1);
	}

	// A transaction manager without synchronization (SYNCHRONIZATION_NEVER): the engine
	// cannot follow its transaction, but its connection is bound to the thread in a
	// transaction. Completed at once on a connection of the store's own, the record
	// would say done for a business row that the rollback undid: a lost effect. Joined,
	// it rolls back with the row, and the record waits for its lease
	@Test
	void transactionWithoutSynchronizationNeverLosesTheEffectOnRollback() {
		IdempotentExecutor executor = executor(OnInProgress.REJECT);
		String key = key();
		DataSourceTransactionManager manager = new DataSourceTransactionManager(this.database.dataSource());
		manager.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);
		TransactionTemplate unsynchronized = new TransactionTemplate(manager);
		unsynchronized.executeWithoutResult((status) -> {
			pay(executor, key);
			status.setRollbackOnly();
		});
		assertThat(payments(key)).isZero();
		assertThat(state(key)).isNotEqualTo(RecordState.COMPLETED);
		assertThat(state(key)).isEqualTo(RecordState.IN_PROGRESS);
		// Not released (nothing hears the rollback): in progress until its lease runs out
		assertThatExceptionOfType(IdempotencyInProgressException.class)
			.isThrownBy(() -> unsynchronized.executeWithoutResult((status) -> pay(executor, key)));
		assertThat(this.runs).hasValue(1);
	}

	// Such a joined completion that fails is not retried inside that transaction either:
	// PostgreSQL refuses every statement of it after the error, and retries would go on
	// for the lease (30 s) before the call fails
	@Test
	void completionThatFailsInATransactionWithoutSynchronizationIsNotRetriedThere() {
		poisonCompletionsOf("poison");
		IdempotentExecutor executor = executor(OnInProgress.REJECT);
		String key = "poison-" + key();
		DataSourceTransactionManager manager = new DataSourceTransactionManager(this.database.dataSource());
		manager.setTransactionSynchronization(AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER);
		long started = System.nanoTime();
		assertThatExceptionOfType(IdempotencyCompletionException.class)
			.isThrownBy(() -> new TransactionTemplate(manager).executeWithoutResult((status) -> pay(executor, key)))
			.havingRootCause()
			.withMessageContaining("poisoned completion");
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
		assertThat(payments(key)).isZero();
	}

	// Schema-per-tenant applications point the transaction's connection at the tenant's
	// schema (PostgreSQL's search_path, MariaDB's current database) for the business
	// writes: the completion joined there must still find the store's table where the
	// store's own connections found it, not fail (aborting the transaction on PostgreSQL)
	// on every call
	@Test
	void completionJoinsATransactionWhoseConnectionLooksInAnotherSchema() {
		String tenant = "tenant_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		createSchema(tenant);
		try {
			this.database.jdbc().execute("CREATE TABLE " + tenant + ".edge_payment (id VARCHAR(100) NOT NULL)");
			IdempotentExecutor executor = executor(OnInProgress.REJECT);
			pay(executor, key());
			String key = key();
			String paid = transactions().execute((status) -> {
				String home = enterSchema(tenant);
				try {
					return pay(executor, key);
				}
				finally {
					leaveSchema(home);
				}
			});
			assertThat(paid).isEqualTo("paid " + key);
			assertThat(state(key)).isEqualTo(RecordState.COMPLETED);
			assertThat(this.database.jdbc()
				.queryForObject("SELECT count(*) FROM " + tenant + ".edge_payment WHERE id = ?", Integer.class, key))
				.isOne();
			assertThat(pay(executor, key)).isEqualTo("paid " + key);
			assertThat(this.runs).hasValue(2);
		}
		finally {
			dropSchema(tenant);
		}
	}

	abstract void createSchema(String name);

	abstract void dropSchema(String name);

	/**
	 * Make the statements of the calling thread's transaction look in another schema.
	 * @return what to leave it with
	 */
	abstract String enterSchema(String name);

	abstract void leaveSchema(String home);

	/**
	 * Make every completion of a key containing a marker fail inside the caller's
	 * transaction, as a trigger of the application's might.
	 */
	abstract void poisonCompletionsOf(String marker);

	StoreDatabase database() {
		return this.database;
	}

	// A stage already complete when the method returns, on the caller's thread: recorded
	// as a synchronous call's outcome, inside the caller's transaction, and released at
	// once when that rolls back rather than left IN_PROGRESS for the lease (30 s)
	@Test
	void asynchronousCallWhoseStageEndedBeforeItReturnedFollowsTheCallersTransaction() throws Exception {
		IdempotencyEngine engine = engine();
		Operation operation = operation(List.of());
		String key = key();
		transactions().executeWithoutResult((status) -> {
			CompletableFuture<Object> future = engine.executeAsync(operation, key, null, () -> {
				this.runs.incrementAndGet();
				this.database.jdbc().update("INSERT INTO edge_payment (id) VALUES (?)", key);
				return CompletableFuture.completedFuture("paid " + key);
			});
			assertThat(future.join()).isEqualTo("paid " + key);
			status.setRollbackOnly();
		});
		assertThat(payments(key)).isZero();
		assertThat(state(key)).isEqualTo(RecordState.FAILED);
		String paid = transactions().execute((status) -> (String) engine.executeAsync(operation, key, null, () -> {
			this.runs.incrementAndGet();
			this.database.jdbc().update("INSERT INTO edge_payment (id) VALUES (?)", key);
			return CompletableFuture.completedFuture("paid " + key);
		}).join());
		assertThat(paid).isEqualTo("paid " + key);
		assertThat(payments(key)).isOne();
		assertThat(state(key)).isEqualTo(RecordState.COMPLETED);
		assertThat(this.runs).hasValue(2);
	}

	// The same for a failure that the operation replays, thrown before the stage exists
	@Test
	void asynchronousCallThatThrowsAReplayedFailureFollowsTheCallersTransaction() throws Exception {
		IdempotencyEngine engine = engine();
		Operation operation = operation(List.of(IllegalArgumentException.class));
		String key = key();
		transactions().executeWithoutResult((status) -> {
			CompletableFuture<Object> future = engine.executeAsync(operation, key, null, () -> {
				this.runs.incrementAndGet();
				throw new IllegalArgumentException("declined " + key);
			});
			assertThat(future).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.withCauseInstanceOf(IllegalArgumentException.class);
			status.setRollbackOnly();
		});
		assertThat(state(key)).isEqualTo(RecordState.FAILED);
	}

	// A value that arrives later, on a thread inside a transaction of its own on the same
	// data source (completed from transactional code): the record completes when the
	// value arrives, never inside that unrelated transaction, whose rollback would leave
	// it IN_PROGRESS for the next delivery to run the method again
	@Test
	void asynchronousCallWhoseValueArrivesInsideAnotherTransactionStaysDone() throws Exception {
		IdempotencyEngine engine = engine();
		Operation operation = operation(List.of());
		String key = key();
		CompletableFuture<String> value = new CompletableFuture<>();
		CompletableFuture<Object> call = engine.executeAsync(operation, key, null, () -> {
			this.runs.incrementAndGet();
			return value;
		});
		CompletableFuture.runAsync(() -> transactions().executeWithoutResult((status) -> {
			value.complete("sent " + key);
			status.setRollbackOnly();
		})).get(10, TimeUnit.SECONDS);
		assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("sent " + key);
		assertThat(state(key)).isEqualTo(RecordState.COMPLETED);
		assertThat(engine.executeAsync(operation, key, null, () -> {
			this.runs.incrementAndGet();
			return CompletableFuture.completedFuture("sent again " + key);
		}).get(10, TimeUnit.SECONDS)).isEqualTo("sent " + key);
		assertThat(this.runs).hasValue(1);
	}

	private IdempotencyEngine engine() {
		executor(OnInProgress.REJECT);
		return this.engines.get(this.engines.size() - 1);
	}

	private static Operation operation(List<Class<? extends Throwable>> replayFailures) {
		return new Operation(NAME,
				new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1), OnInProgress.REJECT,
						Duration.ofSeconds(20)),
				new JacksonResultCodec().forType(ResolvableType.forClass(String.class)), "the test's key",
				replayFailures);
	}

	private IdempotentExecutor executor(OnInProgress onInProgress) {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		IdempotencyEngine engine = new IdempotencyEngine(store(),
				new IdempotencyDefaults(
						new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1), onInProgress,
								Duration.ofSeconds(20)),
						standard.onStoreFailure(), standard.maxKeyLength(), standard.maxResultSize(), Map.of()),
				List.of());
		this.engines.add(engine);
		return new DefaultIdempotentExecutor(engine, new JacksonResultCodec(), new JacksonPayloadFingerprinter());
	}

	private JdbcIdempotencyStore store() {
		return new JdbcIdempotencyStore(this.database.dataSource());
	}

	private TransactionTemplate transactions() {
		DataSourceTransactionManager manager = new DataSourceTransactionManager(this.database.dataSource());
		manager.setNestedTransactionAllowed(true);
		return new TransactionTemplate(manager);
	}

	private String pay(IdempotentExecutor executor, String key) {
		return executor.execute(NAME, key, String.class, () -> {
			this.runs.incrementAndGet();
			this.database.jdbc().update("INSERT INTO edge_payment (id) VALUES (?)", key);
			return "paid " + key;
		});
	}

	private List<BatchOutcome<String, String>> payAll(IdempotentExecutor executor, List<String> keys) {
		return executor.executeAll(NAME, keys, (item) -> item, String.class, (item) -> {
			this.runs.incrementAndGet();
			this.database.jdbc().update("INSERT INTO edge_payment (id) VALUES (?)", item);
			return "paid " + item;
		});
	}

	private int payments(String key) {
		return this.database.jdbc()
			.queryForObject("SELECT count(*) FROM edge_payment WHERE id = ?", Integer.class, key);
	}

	private RecordState state(String key) {
		return store().read(new RecordKey(NAME, key)).map(IdempotencyRecord::state).orElse(null);
	}

	private static String key() {
		return UUID.randomUUID().toString();
	}

}
