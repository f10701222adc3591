package dev.idempotency.engine;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.BatchOutcome;
import dev.idempotency.BatchOutcome.Executed;
import dev.idempotency.BatchOutcome.Failed;
import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyShutdownException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.BatchAcquire;
import dev.idempotency.store.BatchAcquireException;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * An engine shut down by {@link IdempotencyShutdownLifecycle} while calls run.
 */
class IdempotencyShutdownLifecycleTests {

	private static final long DEADLINE_SECONDS = 30;

	private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore();

	private final RecordingListener listener = new RecordingListener();

	private final ExecutorService callers = Executors.newCachedThreadPool();

	private final CountDownLatch stopped = new CountDownLatch(1);

	private final String name = "shutdown-" + UUID.randomUUID();

	private IdempotencyEngine engine = engine(this.memory);

	@AfterEach
	void close() {
		this.callers.shutdownNow();
		this.engine.close();
	}

	private IdempotencyEngine engine(IdempotencyStore store) {
		return new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of(this.listener));
	}

	private Operation operation(OnInProgress onInProgress) {
		return new Operation(this.name,
				new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1), onInProgress,
						Duration.ofSeconds(DEADLINE_SECONDS)),
				new JacksonResultCodec(JsonMapper.builder().build()).forType(ResolvableType.forClass(String.class)),
				"the test's key");
	}

	private Future<Object> callHeld(Operation operation, String key, CountDownLatch started, CountDownLatch release) {
		return this.callers.submit(() -> {
			try {
				return this.engine.execute(operation, key, null, () -> {
					started.countDown();
					assertThat(release.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
					return "done-" + key;
				});
			}
			catch (Throwable ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	private RecordState state(String key) {
		return this.memory.read(new RecordKey(this.name, key)).orElseThrow().state();
	}

	private boolean stopped() throws InterruptedException {
		return this.stopped.await(DEADLINE_SECONDS, TimeUnit.SECONDS);
	}

	@Test
	void stopsBeforeTheStoresConnectionsCloseAndAfterWebServersAndListenerContainers() {
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofSeconds(30));
		assertThat(lifecycle.getPhase()).isGreaterThan(0).isLessThan(SmartLifecycle.DEFAULT_PHASE - 2048);
	}

	@Test
	void stopsAtOnceWhenNoCallRuns() throws Throwable {
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofSeconds(30));
		lifecycle.start();
		lifecycle.stop(this.stopped::countDown);
		assertThat(this.stopped.getCount()).isZero();
		assertThat(lifecycle.isRunning()).isFalse();
	}

	@Test
	void runningCallCompletesItsRecordBeforeTheStopEndsWhileNewCallsAreRefused() throws Throwable {
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofSeconds(30));
		lifecycle.start();
		Operation operation = operation(OnInProgress.REJECT);
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Future<Object> running = callHeld(operation, "running", started, release);
		assertThat(started.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
		lifecycle.stop(this.stopped::countDown);
		AtomicInteger refusedRuns = new AtomicInteger();
		assertThatExceptionOfType(IdempotencyShutdownException.class)
			.isThrownBy(() -> this.engine.execute(operation, "new", null, refusedRuns::incrementAndGet))
			.isInstanceOf(IdempotencyStoreException.class)
			.withMessageContaining("'new'");
		assertThat(refusedRuns).hasValue(0);
		assertThat(this.memory.read(new RecordKey(this.name, "new"))).isEmpty();
		assertThat(this.stopped.getCount()).isOne();
		release.countDown();
		assertThat(running.get(DEADLINE_SECONDS, TimeUnit.SECONDS)).isEqualTo("done-running");
		assertThat(stopped()).isTrue();
		assertThat(state("running")).isEqualTo(RecordState.COMPLETED);
		assertThat(this.listener.outcomes()).containsExactlyInAnyOrder(Outcome.EXECUTED, Outcome.STORE_ERROR);
	}

	@Test
	void asynchronousCallWhoseValueArrivesAfterTheStopBeganCompletesItsRecordFirst() throws Throwable {
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofSeconds(30));
		lifecycle.start();
		CompletableFuture<String> value = new CompletableFuture<>();
		CompletableFuture<Object> result = this.engine.executeAsync(operation(OnInProgress.REJECT), "async", null,
				() -> value);
		lifecycle.stop(this.stopped::countDown);
		assertThat(this.stopped.getCount()).isOne();
		CompletableFuture<Object> refused = this.engine.executeAsync(operation(OnInProgress.REJECT), "refused", null,
				() -> CompletableFuture.completedFuture("never"));
		assertThat(refused).failsWithin(Duration.ofSeconds(DEADLINE_SECONDS))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(IdempotencyShutdownException.class);
		value.complete("paid");
		assertThat(result.get(DEADLINE_SECONDS, TimeUnit.SECONDS)).isEqualTo("paid");
		assertThat(stopped()).isTrue();
		assertThat(state("async")).isEqualTo(RecordState.COMPLETED);
		assertThat(this.memory.read(new RecordKey(this.name, "refused"))).isEmpty();
	}

	@Test
	void acquireOnItsWayWhenTheStopBeginsReleasesTheRecordWithoutRunningTheMethod() throws Throwable {
		CountDownLatch acquiring = new CountDownLatch(1);
		CountDownLatch answer = new CountDownLatch(1);
		IdempotencyStore slowAcquire = new ForwardingStore(this.memory) {

			@Override
			public AcquireResult acquire(RecordKey key, AcquireRequest request) {
				AcquireResult result = super.acquire(key, request);
				acquiring.countDown();
				try {
					assertThat(answer.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return result;
			}

		};
		this.engine.close();
		this.engine = engine(slowAcquire);
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofSeconds(30));
		lifecycle.start();
		AtomicInteger runs = new AtomicInteger();
		Future<Object> call = this.callers.submit(() -> {
			try {
				return this.engine.execute(operation(OnInProgress.REJECT), "late", null, runs::incrementAndGet);
			}
			catch (Throwable ex) {
				return ex;
			}
		});
		assertThat(acquiring.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
		assertThat(state("late")).isEqualTo(RecordState.IN_PROGRESS);
		lifecycle.stop(this.stopped::countDown);
		assertThat(this.stopped.getCount()).isOne();
		answer.countDown();
		assertThat(call.get(DEADLINE_SECONDS, TimeUnit.SECONDS)).isInstanceOf(IdempotencyShutdownException.class);
		assertThat(stopped()).isTrue();
		assertThat(runs).hasValue(0);
		assertThat(state("late")).isEqualTo(RecordState.FAILED);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.STORE_ERROR);
	}

	@Test
	void callsWhoseAcquireFailsAfterTheStopBeganAreRefusedRatherThanRunUnprotected() throws Throwable {
		CountDownLatch acquiring = new CountDownLatch(3);
		CountDownLatch answer = new CountDownLatch(1);
		IdempotencyStore closing = new ForwardingStore(this.memory) {

			@Override
			public AcquireResult acquire(RecordKey key, AcquireRequest request) {
				acquiring.countDown();
				try {
					assertThat(answer.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				throw new IllegalStateException("The connection factory is closed");
			}

		};
		this.engine.close();
		this.engine = new IdempotencyEngine(closing,
				new IdempotencyDefaults(IdempotencyDefaults.STANDARD.settings(), StoreFailurePolicy.PROCEED,
						IdempotencyDefaults.STANDARD.maxKeyLength(), IdempotencyDefaults.STANDARD.maxResultSize(),
						Map.of()),
				List.of(this.listener));
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofMillis(500));
		lifecycle.start();
		Operation operation = operation(OnInProgress.REJECT);
		AtomicInteger runs = new AtomicInteger();
		Future<Object> call = this.callers.submit(() -> {
			try {
				return this.engine.execute(operation, "sync", null, runs::incrementAndGet);
			}
			catch (Throwable ex) {
				return ex;
			}
		});
		Future<CompletableFuture<Object>> async = this.callers.submit(() -> this.engine.executeAsync(operation, "async",
				null, () -> CompletableFuture.completedFuture(runs.incrementAndGet())));
		Future<Object> batch = this.callers.submit(() -> {
			try {
				return this.engine.executeAll(operation, List.of("batch"), (item) -> item, null,
						(item) -> runs.incrementAndGet());
			}
			catch (RuntimeException ex) {
				return ex;
			}
		});
		assertThat(acquiring.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
		lifecycle.stop(this.stopped::countDown);
		assertThat(stopped()).isTrue();
		answer.countDown();
		assertThat(call.get(DEADLINE_SECONDS, TimeUnit.SECONDS)).isInstanceOf(IdempotencyStoreException.class);
		assertThat(async.get(DEADLINE_SECONDS, TimeUnit.SECONDS)).failsWithin(Duration.ofSeconds(DEADLINE_SECONDS))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(IdempotencyStoreException.class);
		assertThat(batch.get(DEADLINE_SECONDS, TimeUnit.SECONDS)).isInstanceOf(IdempotencyStoreException.class);
		assertThat(runs).hasValue(0);
		assertThat(this.listener.outcomes()).containsOnly(Outcome.STORE_ERROR);
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void atTheBoundBatchItemsRunningUnprotectedAfterAStoreFailureStartNoMore(boolean partly) throws Throwable {
		IdempotencyStore failing = new ForwardingStore(this.memory) {

			@Override
			public List<AcquireResult> acquireAll(List<BatchAcquire> batch) {
				if (partly) {
					throw new BatchAcquireException("Redis is down", null, Arrays.asList(new AcquireResult[2]));
				}
				throw new IllegalStateException("Redis is down");
			}

		};
		this.engine.close();
		this.engine = new IdempotencyEngine(failing,
				new IdempotencyDefaults(IdempotencyDefaults.STANDARD.settings(), StoreFailurePolicy.PROCEED,
						IdempotencyDefaults.STANDARD.maxKeyLength(), IdempotencyDefaults.STANDARD.maxResultSize(),
						Map.of()),
				List.of(this.listener));
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofMillis(500));
		lifecycle.start();
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		List<String> ran = new CopyOnWriteArrayList<>();
		Future<List<BatchOutcome<String, Object>>> batch = this.callers.submit(() -> this.engine
			.executeAll(operation(OnInProgress.REJECT), List.of("slow", "waiting"), (item) -> item, null, (item) -> {
				ran.add(item);
				started.countDown();
				try {
					assertThat(release.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return "done-" + item;
			}));
		assertThat(started.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
		lifecycle.stop(this.stopped::countDown);
		assertThat(stopped()).isTrue();
		release.countDown();
		List<BatchOutcome<String, Object>> outcomes = batch.get(DEADLINE_SECONDS, TimeUnit.SECONDS);
		assertThat(ran).containsExactly("slow");
		assertThat(outcomes.get(0)).isInstanceOf(Executed.class);
		assertThat(outcomes.get(1)).isInstanceOfSatisfying(Failed.class,
				(failed) -> assertThat(failed.exception()).isInstanceOf(IdempotencyStoreException.class));
	}

	@Test
	void atTheBoundBatchItemsNotStartedReleaseTheirRecordsAndNeverRunWhileTheRunningOneIsLeftToItsLease()
			throws Throwable {
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofMillis(500));
		lifecycle.start();
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger runs = new AtomicInteger();
		Future<List<BatchOutcome<String, Object>>> batch = this.callers.submit(() -> this.engine
			.executeAll(operation(OnInProgress.REJECT), List.of("slow", "waiting"), (item) -> item, null, (item) -> {
				runs.incrementAndGet();
				started.countDown();
				try {
					assertThat(release.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return "done-" + item;
			}));
		assertThat(started.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
		lifecycle.stop(this.stopped::countDown);
		assertThat(stopped()).isTrue();
		assertThat(state("slow")).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(state("waiting")).isEqualTo(RecordState.FAILED);
		release.countDown();
		List<BatchOutcome<String, Object>> outcomes = batch.get(DEADLINE_SECONDS, TimeUnit.SECONDS);
		assertThat(outcomes.get(0)).isInstanceOf(Executed.class);
		assertThat(outcomes.get(1)).isInstanceOfSatisfying(Failed.class,
				(failed) -> assertThat(failed.exception()).isInstanceOf(IdempotencyShutdownException.class));
		assertThat(runs).hasValue(1);
		assertThat(this.listener.outcomes()).containsExactlyInAnyOrder(Outcome.EXECUTED, Outcome.STORE_ERROR);
	}

	@Test
	void atTheBoundNoMethodStartsWhileTheRecordsOfOtherCallsAreBeingReleased() throws Throwable {
		AtomicReference<String> firstReleased = new AtomicReference<>();
		CountDownLatch releasing = new CountDownLatch(1);
		CountDownLatch answer = new CountDownLatch(1);
		IdempotencyStore slowRelease = new ForwardingStore(this.memory) {

			@Override
			public boolean release(RecordKey key, String owner, long fence, Duration retention) {
				if (firstReleased.compareAndSet(null, key.key())) {
					releasing.countDown();
					try {
						assertThat(answer.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
				return super.release(key, owner, fence, retention);
			}

		};
		this.engine.close();
		this.engine = engine(slowRelease);
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofMillis(500));
		lifecycle.start();
		List<String> ran = new CopyOnWriteArrayList<>();
		Map<String, CountDownLatch> holds = Map.of("a", new CountDownLatch(1), "b", new CountDownLatch(1));
		CountDownLatch started = new CountDownLatch(2);
		Map<String, Future<List<BatchOutcome<String, Object>>>> batches = new HashMap<>();
		for (String batch : holds.keySet()) {
			batches.put(batch, this.callers.submit(() -> this.engine.executeAll(operation(OnInProgress.REJECT),
					List.of(batch + "-running", batch + "-waiting"), (item) -> item, null, (item) -> {
						ran.add(item);
						if (item.endsWith("-running")) {
							started.countDown();
							try {
								assertThat(holds.get(batch).await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
							}
							catch (InterruptedException ex) {
								Thread.currentThread().interrupt();
							}
						}
						return "done-" + item;
					})));
		}
		assertThat(started.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
		lifecycle.stop(this.stopped::countDown);
		assertThat(releasing.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
		String other = firstReleased.get().startsWith("a") ? "b" : "a";
		holds.get(other).countDown();
		List<BatchOutcome<String, Object>> outcomes = batches.get(other).get(DEADLINE_SECONDS, TimeUnit.SECONDS);
		answer.countDown();
		holds.values().forEach(CountDownLatch::countDown);
		assertThat(stopped()).isTrue();
		assertThat(ran).doesNotContain(other + "-waiting");
		assertThat(outcomes.get(1)).isInstanceOfSatisfying(Failed.class,
				(failed) -> assertThat(failed.exception()).isInstanceOf(IdempotencyShutdownException.class));
	}

	@Test
	void callRunningAtTheBoundKeepsItsRecordInProgressAndTheStopEndsWithoutIt() throws Throwable {
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofMillis(500));
		lifecycle.start();
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Future<Object> running = callHeld(operation(OnInProgress.REJECT), "slow", started, release);
		assertThat(started.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
		lifecycle.stop(this.stopped::countDown);
		assertThat(stopped()).isTrue();
		assertThat(state("slow")).isEqualTo(RecordState.IN_PROGRESS);
		release.countDown();
		assertThat(running.get(DEADLINE_SECONDS, TimeUnit.SECONDS)).isEqualTo("done-slow");
	}

	@Test
	void waitingCallStopsWaitingWhenTheStopBegins() throws Throwable {
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofSeconds(30));
		lifecycle.start();
		Operation operation = operation(OnInProgress.WAIT);
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Future<Object> running = callHeld(operation, "held", started, release);
		assertThat(started.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
		AtomicInteger waiterRuns = new AtomicInteger();
		Future<Object> waiting = this.callers.submit(() -> {
			try {
				return this.engine.execute(operation, "held", null, waiterRuns::incrementAndGet);
			}
			catch (Throwable ex) {
				return ex;
			}
		});
		CompletableFuture<Object> waitingAsync = this.engine.executeAsync(operation, "held", null,
				() -> CompletableFuture.completedFuture(waiterRuns.incrementAndGet()));
		await().atMost(Duration.ofSeconds(DEADLINE_SECONDS))
			.until(() -> this.listener.storeOperations().stream().filter(StoreOperation.ACQUIRE::equals).count() >= 3);
		lifecycle.stop(this.stopped::countDown);
		assertThat(waiting.get(DEADLINE_SECONDS, TimeUnit.SECONDS)).isInstanceOf(IdempotencyInProgressException.class);
		assertThat(waitingAsync).failsWithin(Duration.ofSeconds(DEADLINE_SECONDS))
			.withThrowableOfType(ExecutionException.class)
			.withCauseInstanceOf(IdempotencyInProgressException.class);
		assertThat(this.stopped.getCount()).isOne();
		release.countDown();
		assertThat(running.get(DEADLINE_SECONDS, TimeUnit.SECONDS)).isEqualTo("done-held");
		assertThat(stopped()).isTrue();
		assertThat(waiterRuns).hasValue(0);
	}

	@Test
	void batchRefusedAtShutdownRunsNothing() {
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofSeconds(30));
		lifecycle.start();
		lifecycle.stop(this.stopped::countDown);
		AtomicInteger runs = new AtomicInteger();
		assertThatExceptionOfType(IdempotencyShutdownException.class)
			.isThrownBy(() -> this.engine.executeAll(operation(OnInProgress.REJECT), List.of("a", "b", "a"),
					(item) -> item, null, (item) -> runs.incrementAndGet()));
		assertThat(runs).hasValue(0);
		assertThat(this.memory.read(new RecordKey(this.name, "a"))).isEmpty();
		assertThat(this.listener.outcomes()).containsExactly(Outcome.STORE_ERROR, Outcome.STORE_ERROR);
	}

	@Test
	void restartAdmitsCallsAgain() throws Throwable {
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofSeconds(30));
		lifecycle.start();
		lifecycle.stop(this.stopped::countDown);
		Operation operation = operation(OnInProgress.REJECT);
		assertThatExceptionOfType(IdempotencyShutdownException.class)
			.isThrownBy(() -> this.engine.execute(operation, "k", null, () -> "refused"));
		lifecycle.start();
		assertThat(lifecycle.isRunning()).isTrue();
		assertThat(this.engine.execute(operation, "k", null, () -> "ran")).isEqualTo("ran");
	}

	@Test
	void callThatStopsTheEngineFromItsOwnMethodWaitsOnlyForTheOtherCalls() throws Throwable {
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofMinutes(2));
		lifecycle.start();
		Operation operation = operation(OnInProgress.REJECT);
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Future<Object> other = callHeld(operation, "other", started, release);
		assertThat(started.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
		Object stoppedWhileClosing = this.engine.execute(operation, "closing", null, () -> {
			lifecycle.stop(this.stopped::countDown);
			assertThat(this.stopped.getCount()).isOne();
			release.countDown();
			assertThat(other.get(DEADLINE_SECONDS, TimeUnit.SECONDS)).isEqualTo("done-other");
			return stopped();
		});
		assertThat(stoppedWhileClosing).isEqualTo(true);
		assertThat(state("other")).isEqualTo(RecordState.COMPLETED);
	}

	@Test
	void batchItemThatStopsTheEngineFromItsOwnMethodReleasesTheItemsAfterItWhichNeverRun() throws Throwable {
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofMinutes(2));
		lifecycle.start();
		List<String> ran = new CopyOnWriteArrayList<>();
		List<BatchOutcome<String, Object>> outcomes = this.engine.executeAll(operation(OnInProgress.REJECT),
				List.of("closing", "after"), (item) -> item, null, (item) -> {
					ran.add(item);
					lifecycle.stop(this.stopped::countDown);
					return "done-" + item;
				});
		assertThat(this.stopped.getCount()).isZero();
		assertThat(ran).containsExactly("closing");
		assertThat(outcomes.get(1)).isInstanceOfSatisfying(Failed.class,
				(failed) -> assertThat(failed.exception()).isInstanceOf(IdempotencyShutdownException.class));
		assertThat(state("after")).isEqualTo(RecordState.FAILED);
	}

	@Test
	void stopThatReachesItsBoundAfterARestartLeavesTheCallsOfTheRestartedEngineAlone() throws Throwable {
		IdempotencyShutdownLifecycle lifecycle = new IdempotencyShutdownLifecycle(this.engine, Duration.ofSeconds(3));
		lifecycle.start();
		Operation operation = operation(OnInProgress.REJECT);
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Future<Object> beforeStop = callHeld(operation, "before-stop", started, release);
		assertThat(started.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
		// A lifecycle processor whose timeout for the phase is shorter restarts the
		// context before this stop reaches its bound
		lifecycle.stop(this.stopped::countDown);
		lifecycle.start();
		CountDownLatch firstItem = new CountDownLatch(1);
		CountDownLatch batchRelease = new CountDownLatch(1);
		Future<List<BatchOutcome<String, Object>>> batch = this.callers.submit(
				() -> this.engine.executeAll(operation, List.of("first", "second"), (item) -> item, null, (item) -> {
					if (item.equals("first")) {
						firstItem.countDown();
						try {
							assertThat(batchRelease.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
						}
						catch (InterruptedException ex) {
							Thread.currentThread().interrupt();
						}
					}
					return "done-" + item;
				}));
		assertThat(firstItem.await(DEADLINE_SECONDS, TimeUnit.SECONDS)).isTrue();
		assertThat(stopped()).isTrue();
		batchRelease.countDown();
		release.countDown();
		assertThat(beforeStop.get(DEADLINE_SECONDS, TimeUnit.SECONDS)).isEqualTo("done-before-stop");
		assertThat(batch.get(DEADLINE_SECONDS, TimeUnit.SECONDS))
			.allSatisfy((outcome) -> assertThat(outcome).isInstanceOf(Executed.class));
		assertThat(state("second")).isEqualTo(RecordState.COMPLETED);
	}

	@Test
	void closedEngineRefusesCallsBeforeAskingTheStore() {
		this.engine.close();
		AtomicInteger runs = new AtomicInteger();
		assertThatExceptionOfType(IdempotencyShutdownException.class)
			.isThrownBy(() -> this.engine.execute(operation(OnInProgress.REJECT), "k", null, runs::incrementAndGet));
		assertThat(runs).hasValue(0);
		assertThat(this.listener.storeOperations()).isEmpty();
	}

	@Test
	void negativeTimeoutIsRejected() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new IdempotencyShutdownLifecycle(this.engine, Duration.ofSeconds(-1)))
			.withMessage("'timeout' must not be negative");
	}

}
