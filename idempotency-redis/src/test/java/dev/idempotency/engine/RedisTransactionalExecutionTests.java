package dev.idempotency.engine;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.BatchOutcome;
import dev.idempotency.BatchOutcome.Executed;
import dev.idempotency.BatchOutcome.Replayed;
import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.core.ResolvableType;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Calls that return inside a Spring-managed transaction, on a real Redis: the record
 * completes once the transaction has committed, and is released once it has rolled back.
 */
class RedisTransactionalExecutionTests {

	private static final OperationSettings SETTINGS = new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1),
			OnInProgress.REJECT, Duration.ofSeconds(5));

	private final RecordingListener listener = new RecordingListener();

	private final List<String> observed = new CopyOnWriteArrayList<>();

	private final TestTransactionManager transactions = new TestTransactionManager();

	private final AtomicInteger runs = new AtomicInteger();

	private final AtomicInteger renewals = new AtomicInteger();

	private final Operation operation = operation(SETTINGS);

	private final RecordKey record = new RecordKey(this.operation.name(), "k");

	private final IdempotencyStore redis = new RedisIdempotencyStore(TestRedis.get().connectionFactory(),
			"idempotency:");

	private IdempotencyEngine engine = engine(new RenewalCounting(this.redis));

	@AfterEach
	void closeEngine() {
		this.engine.close();
	}

	@Test
	void recordStaysInProgressUntilTheCommitAndThenCompletesForTheDuplicateToReplay() {
		String value = inTransaction(() -> {
			String returned = call();
			assertThat(state()).isEqualTo(RecordState.IN_PROGRESS);
			assertThatExceptionOfType(IdempotencyInProgressException.class).isThrownBy(this::callOnAnotherThread);
			assertThat(this.listener.outcomes()).containsExactly(Outcome.IN_PROGRESS);
			return returned;
		});
		assertThat(value).isEqualTo("receipt-1");
		assertThat(state()).isEqualTo(RecordState.COMPLETED);
		assertThat(call()).isEqualTo("receipt-1");
		assertThat(this.runs).hasValue(1);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.IN_PROGRESS, Outcome.EXECUTED, Outcome.REPLAYED);
		assertThat(this.observed).containsExactly("detach", "IN_PROGRESS", "end IdempotencyInProgressException",
				"EXECUTED", "end", "REPLAYED", "end");
	}

	@Test
	void waitingDuplicateReplaysOnceTheTransactionHasCommitted() throws Exception {
		Operation waiting = operation(new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1),
				OnInProgress.WAIT, Duration.ofSeconds(20)));
		CompletableFuture<String> duplicate = inTransaction(() -> {
			call(waiting);
			CompletableFuture<String> waited = CompletableFuture.supplyAsync(() -> call(waiting));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> this.listener.storeOperations()
					.stream()
					.filter(StoreOperation.ACQUIRE::equals)
					.count() > 2);
			assertThat(waited).isNotDone();
			return waited;
		});
		assertThat(duplicate.get(10, TimeUnit.SECONDS)).isEqualTo("receipt-1");
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void duplicateInTheSameTransactionReplaysTheValueItIsAboutToCommit() {
		Operation waiting = operation(new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1),
				OnInProgress.WAIT, Duration.ofSeconds(20)));
		inTransaction(() -> {
			assertThat(call()).isEqualTo("receipt-1");
			assertThat(call()).isEqualTo("receipt-1");
			assertThat(call(waiting)).isEqualTo("receipt-2");
			assertThat(call(waiting)).isEqualTo("receipt-2");
			assertThat(callAll("k", "other")).map(RedisTransactionalExecutionTests::result)
				.containsExactly("receipt-1", "other-3");
			assertThat(callAll("other")).map(RedisTransactionalExecutionTests::result).containsExactly("other-3");
			return null;
		});
		assertThat(this.runs).hasValue(3);
		assertThat(state()).isEqualTo(RecordState.COMPLETED);
		assertThat(state("other")).isEqualTo(RecordState.COMPLETED);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.REPLAYED, Outcome.REPLAYED, Outcome.REPLAYED,
				Outcome.REPLAYED, Outcome.EXECUTED, Outcome.EXECUTED, Outcome.EXECUTED);
	}

	@Test
	void rollbackAfterTheMethodRanReleasesTheRecordAndTheRedeliveryRunsTheMethodAgain() {
		new TransactionTemplate(this.transactions).executeWithoutResult((status) -> {
			assertThat(call()).isEqualTo("receipt-1");
			status.setRollbackOnly();
		});
		assertThat(this.transactions.rolledBack()).isOne();
		assertThat(state()).isEqualTo(RecordState.FAILED);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.FAILED);
		assertThat(this.observed).containsExactly("detach", "FAILED", "end IllegalStateException");
		String retried = inTransaction(this::call);
		assertThat(retried).isEqualTo("receipt-2");
		assertThat(state()).isEqualTo(RecordState.COMPLETED);
		assertThat(call()).isEqualTo("receipt-2");
		assertThat(this.runs).hasValue(2);
	}

	@Test
	void commitWithAnUnknownOutcomeReleasesTheRecordSoThatTheRetryRunsAgain() {
		this.transactions.failNextCommit();
		assertThatExceptionOfType(TransactionSystemException.class).isThrownBy(() -> inTransaction(this::call));
		assertThat(state()).isEqualTo(RecordState.FAILED);
		String retried = inTransaction(this::call);
		assertThat(retried).isEqualTo("receipt-2");
	}

	@Test
	void leaseStaysRenewedWhileTheTransactionIsOpenAfterTheMethodReturned() {
		Operation shortLease = operation(new OperationSettings(Duration.ofMillis(600), Duration.ofHours(1),
				OnInProgress.REJECT, Duration.ofSeconds(5)));
		inTransaction(() -> {
			call(shortLease);
			// A renewal every third of the lease: more than a lease has passed
			await().atMost(Duration.ofSeconds(10)).until(() -> this.renewals.get() > 3);
			assertThatExceptionOfType(IdempotencyInProgressException.class)
				.isThrownBy(() -> callOnAnotherThread(shortLease));
			return null;
		});
		assertThat(state(shortLease)).isEqualTo(RecordState.COMPLETED);
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void callInsideANewInnerTransactionCompletesWithItsCommitWhateverTheOuterTransactionDoes() {
		new TransactionTemplate(this.transactions).executeWithoutResult((outer) -> {
			propagation(TransactionDefinition.PROPAGATION_REQUIRES_NEW).execute((inner) -> call());
			assertThat(state()).isEqualTo(RecordState.COMPLETED);
			outer.setRollbackOnly();
		});
		assertThat(state()).isEqualTo(RecordState.COMPLETED);
	}

	@Test
	void newInnerTransactionOfTheMethodDoesNotSettleTheRecordOfTheOuterOne() {
		new TransactionTemplate(this.transactions).executeWithoutResult((outer) -> {
			call(() -> propagation(TransactionDefinition.PROPAGATION_REQUIRES_NEW)
				.execute((inner) -> "receipt-" + this.runs.incrementAndGet()));
			assertThat(this.transactions.committed()).isOne();
			assertThat(state()).isEqualTo(RecordState.IN_PROGRESS);
			outer.setRollbackOnly();
		});
		assertThat(state()).isEqualTo(RecordState.FAILED);
	}

	@Test
	void rollbackToASavepointTakenBeforeTheMethodReturnedReleasesTheRecord() {
		new TransactionTemplate(this.transactions).executeWithoutResult((outer) -> {
			propagation(TransactionDefinition.PROPAGATION_NESTED).executeWithoutResult((nested) -> {
				assertThat(call()).isEqualTo("receipt-1");
				assertThat(callAll("a")).map(RedisTransactionalExecutionTests::result).containsExactly("a-2");
				nested.setRollbackOnly();
			});
			assertThat(this.transactions.rolledBackToSavepoint()).isOne();
			assertThat(state()).isEqualTo(RecordState.FAILED);
			assertThat(state("a")).isEqualTo(RecordState.FAILED);
			assertThat(call()).isEqualTo("receipt-3");
		});
		assertThat(this.transactions.committed()).isOne();
		assertThat(state()).isEqualTo(RecordState.COMPLETED);
		assertThat(state("a")).isEqualTo(RecordState.FAILED);
		assertThat(call()).isEqualTo("receipt-3");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.FAILED, Outcome.FAILED, Outcome.EXECUTED,
				Outcome.REPLAYED);
	}

	@Test
	void rollbackToASavepointTakenAfterTheMethodReturnedKeepsTheRecordForTheCommit() {
		inTransaction(() -> {
			call();
			propagation(TransactionDefinition.PROPAGATION_NESTED)
				.executeWithoutResult(TransactionStatus::setRollbackOnly);
			assertThat(this.transactions.rolledBackToSavepoint()).isOne();
			assertThat(state()).isEqualTo(RecordState.IN_PROGRESS);
			return null;
		});
		assertThat(state()).isEqualTo(RecordState.COMPLETED);
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void synchronizationBeforeTheRecordThatFailsAfterTheCommitReleasesTheRecord() {
		// A resource that commits once the transaction has, such as a KafkaTemplate's
		// producer synchronized with a database transaction, whose commit failed
		assertThatIllegalStateException().isThrownBy(() -> inTransaction(() -> {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					throw new IllegalStateException("producer fenced");
				}

			});
			return call();
		})).withMessage("producer fenced");
		assertThat(this.transactions.committed()).isOne();
		assertThat(state()).isEqualTo(RecordState.FAILED);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.FAILED);
		String retried = inTransaction(this::call);
		assertThat(retried).isEqualTo("receipt-2");
	}

	@Test
	void callMadeByAnotherSynchronizationOnceTheTransactionHasCommittedCompletesItsRecord() {
		inTransaction(() -> {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCommit() {
					call();
				}

			});
			return null;
		});
		assertThat(state()).isEqualTo(RecordState.COMPLETED);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED);
	}

	@Test
	void synchronizationThatFailsBeforeTheCommitRollsBackAndReleasesTheRecord() {
		assertThatIllegalStateException().isThrownBy(() -> inTransaction(() -> {
			call();
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void beforeCommit(boolean readOnly) {
					throw new IllegalStateException("flush failed");
				}

			});
			return null;
		}));
		assertThat(this.transactions.rolledBack()).isOne();
		assertThat(state()).isEqualTo(RecordState.FAILED);
	}

	@Test
	void callOutsideAnyActualTransactionCompletesAtOnce() {
		new TransactionTemplate(this.transactions).executeWithoutResult((outer) -> {
			propagation(TransactionDefinition.PROPAGATION_NOT_SUPPORTED).execute((none) -> call());
			assertThat(state()).isEqualTo(RecordState.COMPLETED);
			outer.setRollbackOnly();
		});
		assertThat(state()).isEqualTo(RecordState.COMPLETED);
	}

	@Test
	void storeThatJoinsTheTransactionCompletesItsRecordInsideIt() {
		this.engine.close();
		this.engine = engine(new ForwardingStore(this.redis) {

			@Override
			public boolean joinsCurrentTransaction() {
				return true;
			}

		});
		inTransaction(() -> {
			call();
			assertThat(state()).isEqualTo(RecordState.COMPLETED);
			return null;
		});
	}

	@Test
	void completionThatFailsAfterTheCommitIsCountedAndLeavesTheRecordToItsLease() {
		this.engine.close();
		this.engine = engine(new ForwardingStore(this.redis) {

			@Override
			public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
				throw new IllegalStateException("Redis went away");
			}

		});
		Operation shortLease = operation(new OperationSettings(Duration.ofMillis(300), Duration.ofHours(1),
				OnInProgress.REJECT, Duration.ofSeconds(5)));
		String value = inTransaction(() -> call(shortLease));
		assertThat(value).isEqualTo("receipt-1");
		assertThat(this.transactions.committed()).isOne();
		assertThat(state(shortLease)).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.STORE_ERROR);
		assertThat(this.observed).endsWith("STORE_ERROR", "end IdempotencyCompletionException");
	}

	@Test
	void batchInsideATransactionCompletesItsRecordsAfterTheCommitAndReleasesThemAfterARollback() {
		List<BatchOutcome<String, @Nullable Object>> outcomes = inTransaction(() -> {
			List<BatchOutcome<String, @Nullable Object>> returned = callAll("a", "b", "a");
			assertThat(state("a")).isEqualTo(RecordState.IN_PROGRESS);
			assertThat(state("b")).isEqualTo(RecordState.IN_PROGRESS);
			assertThat(this.listener.outcomes()).containsExactly(Outcome.REPLAYED);
			return returned;
		});
		assertThat(outcomes).map(RedisTransactionalExecutionTests::result).containsExactly("a-1", "b-2", "a-1");
		assertThat(state("a")).isEqualTo(RecordState.COMPLETED);
		assertThat(state("b")).isEqualTo(RecordState.COMPLETED);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.REPLAYED, Outcome.EXECUTED, Outcome.EXECUTED);
		new TransactionTemplate(this.transactions).executeWithoutResult((status) -> {
			assertThat(callAll("b", "c")).map(RedisTransactionalExecutionTests::result).containsExactly("b-2", "c-3");
			status.setRollbackOnly();
		});
		assertThat(state("b")).isEqualTo(RecordState.COMPLETED);
		assertThat(state("c")).isEqualTo(RecordState.FAILED);
		assertThat(this.observed.stream().filter((event) -> event.startsWith("end"))).containsExactly("end", "end",
				"end", "end", "end IllegalStateException");
	}

	private <T> @Nullable T inTransaction(Supplier<T> work) {
		return new TransactionTemplate(this.transactions).execute((status) -> work.get());
	}

	private TransactionTemplate propagation(int propagation) {
		TransactionTemplate template = new TransactionTemplate(this.transactions);
		template.setPropagationBehavior(propagation);
		return template;
	}

	private String call() {
		return call(this.operation);
	}

	private String call(Operation operation) {
		return call(operation, () -> "receipt-" + this.runs.incrementAndGet());
	}

	private String call(Supplier<@Nullable String> work) {
		return call(this.operation, work);
	}

	private String call(Operation operation, Supplier<@Nullable String> work) {
		try {
			return (String) this.engine.execute(operation, "k", null, work::get);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException(ex);
		}
	}

	private void callOnAnotherThread() throws Throwable {
		callOnAnotherThread(this.operation);
	}

	private void callOnAnotherThread(Operation operation) throws Throwable {
		try {
			CompletableFuture.runAsync(() -> call(operation)).get(10, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			throw ex.getCause();
		}
	}

	private List<BatchOutcome<String, @Nullable Object>> callAll(String... keys) {
		return this.engine.executeAll(this.operation, List.of(keys), (key) -> key, null,
				(key) -> key + "-" + this.runs.incrementAndGet());
	}

	private static @Nullable Object result(BatchOutcome<String, @Nullable Object> outcome) {
		if (outcome instanceof Executed<String, @Nullable Object> executed) {
			return executed.result();
		}
		return (outcome instanceof Replayed<String, @Nullable Object> replayed) ? replayed.result() : outcome;
	}

	private @Nullable RecordState state(String key) {
		return this.redis.read(new RecordKey(this.operation.name(), key)).map(IdempotencyRecord::state).orElse(null);
	}

	private @Nullable RecordState state() {
		return state(this.operation);
	}

	private @Nullable RecordState state(Operation operation) {
		return this.redis.read(new RecordKey(operation.name(), "k")).map(IdempotencyRecord::state).orElse(null);
	}

	private static Operation operation(OperationSettings settings) {
		return new Operation("tx-" + UUID.randomUUID(), settings,
				new JacksonResultCodec(JsonMapper.builder().build()).forType(ResolvableType.forClass(String.class)),
				"the test's key");
	}

	private IdempotencyEngine engine(IdempotencyStore store) {
		return new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of(this.listener),
				(name, key) -> new Call() {

					@Override
					public void detach() {
						RedisTransactionalExecutionTests.this.observed.add("detach");
					}

					@Override
					public void outcome(Outcome outcome) {
						RedisTransactionalExecutionTests.this.observed.add(outcome.name());
					}

					@Override
					public void end(@Nullable Throwable error) {
						RedisTransactionalExecutionTests.this.observed
							.add((error != null) ? "end " + error.getClass().getSimpleName() : "end");
					}

				});
	}

	private final class RenewalCounting extends ForwardingStore {

		RenewalCounting(IdempotencyStore delegate) {
			super(delegate);
		}

		@Override
		public CompletionStage<Boolean> renewAsync(RecordKey key, String owner, long fence, Duration lease,
				Duration retention) {
			RedisTransactionalExecutionTests.this.renewals.incrementAndGet();
			return super.renewAsync(key, owner, fence, lease, retention);
		}

	}

}
