package dev.idempotency.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import dev.idempotency.Idempotent;
import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.IdempotencyListener;
import dev.idempotency.engine.Outcome;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Idempotent} methods that return a {@code CompletableFuture} or a {@code Mono},
 * against Redis: each scenario runs for both.
 */
class AsyncIdempotentMethodTests {

	private AnnotationConfigApplicationContext context;

	private Payments payments;

	private Work work;

	private IdempotencyStore store;

	private Outcomes outcomes;

	private String key;

	@BeforeEach
	void start() {
		this.context = new AnnotationConfigApplicationContext(Infrastructure.class, Work.class, Payments.class);
		this.payments = this.context.getBean(Payments.class);
		this.work = this.context.getBean(Work.class);
		this.store = this.context.getBean(IdempotencyEngine.class).getStore();
		this.outcomes = this.context.getBean(Outcomes.class);
		this.key = UUID.randomUUID().toString();
	}

	@AfterEach
	void close() {
		this.context.close();
	}

	private IdempotencyRecord record(Kind kind) {
		return record(kind.name);
	}

	private IdempotencyRecord record(String name) {
		return this.store.read(new RecordKey(name, this.key)).orElseThrow();
	}

	private static Throwable failure(CompletableFuture<?> future) {
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> future.get(10, TimeUnit.SECONDS));
		return future.handle((value, ex) -> ex).join();
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void secondCallReplaysTheValueWithoutRunningTheMethod(Kind kind) throws Exception {
		assertThat(kind.call(this.payments, this.key).get(10, TimeUnit.SECONDS)).isEqualTo("receipt-1");
		CompletableFuture<String> replay = kind.call(this.payments, this.key);
		assertThat(replay.get(10, TimeUnit.SECONDS)).isEqualTo("receipt-1");
		assertThat(this.work.runs).hasValue(1);
		assertThat(this.outcomes.of(kind)).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
		assertThat(record(kind).state()).isEqualTo(RecordState.COMPLETED);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void recordCompletesOnlyWhenTheValueArrivesAndTheCallerHearsAfterIt(Kind kind) throws Exception {
		CompletableFuture<String> pending = new CompletableFuture<>();
		this.work.next = (key) -> pending;
		CompletableFuture<String> first = kind.call(this.payments, this.key);
		assertThat(first).isNotDone();
		assertThat(record(kind).state()).isEqualTo(RecordState.IN_PROGRESS);
		List<RecordState> seenByCaller = new CopyOnWriteArrayList<>();
		CompletableFuture<String> heard = first.whenComplete((value, ex) -> seenByCaller.add(record(kind).state()));
		pending.complete("late");
		assertThat(heard.get(10, TimeUnit.SECONDS)).isEqualTo("late");
		assertThat(seenByCaller).containsExactly(RecordState.COMPLETED);
		assertThat(kind.call(this.payments, this.key).get(10, TimeUnit.SECONDS)).isEqualTo("late");
		assertThat(this.work.runs).hasValue(1);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void failedValueReleasesTheRecordAndTheNextCallRuns(Kind kind) throws Exception {
		IllegalStateException boom = new IllegalStateException("card declined");
		this.work.next = (key) -> CompletableFuture.failedFuture(boom);
		assertThat(failure(kind.call(this.payments, this.key))).isSameAs(boom);
		assertThat(record(kind).state()).isEqualTo(RecordState.FAILED);
		this.work.next = (key) -> CompletableFuture.completedFuture("second");
		assertThat(kind.call(this.payments, this.key).get(10, TimeUnit.SECONDS)).isEqualTo("second");
		assertThat(this.work.runs).hasValue(2);
		assertThat(record(kind).fence()).isEqualTo(2);
		assertThat(this.outcomes.of(kind)).containsExactly(Outcome.FAILED, Outcome.EXECUTED);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void exceptionThrownBeforeTheStageExistsReleasesTheRecord(Kind kind) throws Exception {
		IllegalArgumentException boom = new IllegalArgumentException("bad card");
		this.work.next = (key) -> {
			throw boom;
		};
		assertThat(failure(kind.call(this.payments, this.key))).isSameAs(boom);
		assertThat(record(kind).state()).isEqualTo(RecordState.FAILED);
		this.work.next = (key) -> CompletableFuture.completedFuture("retried");
		assertThat(kind.call(this.payments, this.key).get(10, TimeUnit.SECONDS)).isEqualTo("retried");
		assertThat(this.outcomes.of(kind)).containsExactly(Outcome.FAILED, Outcome.EXECUTED);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void cancellingTheCallCancelsTheMethodsValueAndReleasesTheRecord(Kind kind) throws Exception {
		CompletableFuture<String> pending = new CompletableFuture<>();
		this.work.next = (key) -> pending;
		CompletableFuture<String> call = kind.call(this.payments, this.key);
		call.cancel(true);
		await().atMost(Duration.ofSeconds(10)).until(pending::isCancelled);
		await().atMost(Duration.ofSeconds(10)).until(() -> record(kind).state() == RecordState.FAILED);
		assertThat(this.outcomes.of(kind)).containsExactly(Outcome.FAILED);
		this.work.next = (key) -> CompletableFuture.completedFuture("retried");
		assertThat(kind.call(this.payments, this.key).get(10, TimeUnit.SECONDS)).isEqualTo("retried");
		assertThat(this.work.runs).hasValue(2);
	}

	@Test
	void disposingTheSubscriptionCancelsTheMethodsMonoAndReleasesTheRecord() {
		CompletableFuture<String> pending = new CompletableFuture<>();
		this.work.next = (key) -> pending;
		Disposable subscription = this.payments.mono(this.key).subscribe();
		assertThat(record(Kind.MONO).state()).isEqualTo(RecordState.IN_PROGRESS);
		subscription.dispose();
		await().atMost(Duration.ofSeconds(10)).until(pending::isCancelled);
		await().atMost(Duration.ofSeconds(10)).until(() -> record(Kind.MONO).state() == RecordState.FAILED);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void valueThatArrivesAfterTheLockTimeoutKeepsItsRecordRenewed(Kind kind) throws Exception {
		CompletableFuture<String> pending = new CompletableFuture<>();
		this.work.next = (key) -> pending;
		CompletableFuture<String> first = kind.call(this.payments, this.key);
		IdempotencyRecord started = record(kind);
		// Renewed past three lock timeouts of 1s while the value is pending
		await().atMost(Duration.ofSeconds(20))
			.until(() -> record(kind).leaseExpiresAt().isAfter(started.startedAt().plusSeconds(3)));
		assertThat(failure(kind.call(this.payments, this.key))).isInstanceOf(IdempotencyInProgressException.class);
		assertThat(record(kind).fence()).isEqualTo(started.fence());
		pending.complete("slow");
		assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("slow");
		assertThat(kind.call(this.payments, this.key).get(10, TimeUnit.SECONDS)).isEqualTo("slow");
		assertThat(this.work.runs).hasValue(1);
		assertThat(this.outcomes.of(kind)).containsExactly(Outcome.IN_PROGRESS, Outcome.EXECUTED, Outcome.REPLAYED);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void concurrentCallersRunTheMethodOnceAndTheOthersAreRefusedOrReplay(Kind kind) throws Exception {
		List<CompletableFuture<String>> calls = race(kind, false);
		List<String> values = new ArrayList<>();
		int inProgress = 0;
		for (CompletableFuture<String> call : calls) {
			try {
				values.add(call.get(10, TimeUnit.SECONDS));
			}
			catch (ExecutionException ex) {
				assertThat(ex.getCause()).isInstanceOf(IdempotencyInProgressException.class);
				inProgress++;
			}
		}
		assertThat(this.work.runs).hasValue(1);
		assertThat(values).isNotEmpty().containsOnly("raced");
		assertThat(this.outcomes.of(kind)).hasSize(32)
			.containsOnlyOnce(Outcome.EXECUTED)
			.filteredOn(Outcome.IN_PROGRESS::equals)
			.hasSize(inProgress);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void concurrentCallersThatWaitAllGetTheValueOfTheOneExecution(Kind kind) throws Exception {
		List<CompletableFuture<String>> calls = race(kind, true);
		for (CompletableFuture<String> call : calls) {
			assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("raced");
		}
		assertThat(this.work.runs).hasValue(1);
		assertThat(this.outcomes.of(kind.waiting())).hasSize(32)
			.containsOnlyOnce(Outcome.EXECUTED)
			.filteredOn(Outcome.REPLAYED::equals)
			.hasSize(31);
	}

	// 32 callers on 32 threads; the method's value arrives once every call has returned
	private List<CompletableFuture<String>> race(Kind kind, boolean wait) throws Exception {
		CompletableFuture<String> pending = new CompletableFuture<>();
		this.work.next = (key) -> pending;
		CountDownLatch ready = new CountDownLatch(32);
		CountDownLatch go = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(32);
		try {
			List<Future<CompletableFuture<String>>> started = new ArrayList<>();
			for (int i = 0; i < 32; i++) {
				started.add(executor.submit(() -> {
					ready.countDown();
					go.await();
					return wait ? kind.waiting().call(this.payments, this.key) : kind.call(this.payments, this.key);
				}));
			}
			ready.await();
			go.countDown();
			List<CompletableFuture<String>> calls = new ArrayList<>();
			for (Future<CompletableFuture<String>> call : started) {
				calls.add(call.get(30, TimeUnit.SECONDS));
			}
			pending.complete("raced");
			return calls;
		}
		finally {
			executor.shutdownNow();
		}
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void waitNeverBlocksTheCallersThread(Kind kind) throws Exception {
		CompletableFuture<String> pending = new CompletableFuture<>();
		this.work.next = (key) -> pending;
		CompletableFuture<String> first = kind.waiting().call(this.payments, this.key);
		// Returned on this very thread while the first call holds the record
		CompletableFuture<String> waiting = kind.waiting().call(this.payments, this.key);
		assertThat(waiting).isNotDone();
		assertThat(first).isNotDone();
		pending.complete("waited");
		assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo("waited");
		assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("waited");
		assertThat(this.work.runs).hasValue(1);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void cancellingAWaitingCallStopsItsWait(Kind kind) throws Exception {
		CompletableFuture<String> pending = new CompletableFuture<>();
		this.work.next = (key) -> pending;
		CompletableFuture<String> first = kind.waiting().call(this.payments, this.key);
		CompletableFuture<String> waiting = kind.waiting().call(this.payments, this.key);
		waiting.cancel(true);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.outcomes.of(kind.waiting()).size() == 1);
		assertThat(this.outcomes.of(kind.waiting())).containsExactly(Outcome.IN_PROGRESS);
		pending.complete("first");
		assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
		assertThat(this.work.runs).hasValue(1);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void completionThatFindsTheRecordLostFailsTheCallWithTheStoresException(Kind kind) throws Exception {
		CompletableFuture<String> pending = new CompletableFuture<>();
		this.work.next = (key) -> pending;
		CompletableFuture<String> call = kind.call(this.payments, this.key);
		assertThat(this.store.evict(new RecordKey(kind.name, this.key))).isTrue();
		pending.complete("lost");
		assertThat(failure(call)).isInstanceOf(IdempotencyLockLostException.class);
		assertThat(this.outcomes.of(kind)).containsExactly(Outcome.LOCK_LOST);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void keyThatCannotBeEvaluatedFailsTheCallNotTheMethodCall(Kind kind) {
		CompletableFuture<String> call = kind.call(this.payments, null);
		assertThat(failure(call)).isInstanceOf(IdempotencyKeyException.class);
		assertThat(this.work.runs).hasValue(0);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void contextIsCurrentWhileTheMethodReturnsItsValue(Kind kind) throws Exception {
		List<Long> fences = new CopyOnWriteArrayList<>();
		this.work.next = (key) -> {
			fences.add(IdempotencyContext.current().fence());
			return CompletableFuture.completedFuture("fenced");
		};
		assertThat(kind.call(this.payments, this.key).get(10, TimeUnit.SECONDS)).isEqualTo("fenced");
		assertThat(fences).containsExactly(1L);
		assertThat(IdempotencyContext.isActive()).isFalse();
	}

	@Test
	void keyReusedWithAnotherPayloadFailsTheStageAndTheMono() throws Exception {
		assertThat(this.payments.charge(this.key, 10).get(10, TimeUnit.SECONDS)).isEqualTo("receipt-1");
		assertThat(failure(this.payments.charge(this.key, 20))).isInstanceOf(IdempotencyKeyReuseException.class);
		assertThat(this.payments.refund(this.key, 10).block(Duration.ofSeconds(10))).isEqualTo("receipt-2");
		assertThat(failure(this.payments.refund(this.key, 20).toFuture()))
			.isInstanceOf(IdempotencyKeyReuseException.class);
		assertThat(this.work.runs).hasValue(2);
		assertThat(this.outcomes.of("async.charge")).containsExactly(Outcome.EXECUTED, Outcome.KEY_REUSE);
		assertThat(this.outcomes.of("async.refund")).containsExactly(Outcome.EXECUTED, Outcome.KEY_REUSE);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void listedFailureIsStoredAndReplayedAsAFailedStage(Kind kind) throws Exception {
		CardDeclinedException declined = new CardDeclinedException("insufficient funds");
		this.work.next = (key) -> CompletableFuture.failedFuture(declined);
		assertThat(failure(kind.declining(this.payments, this.key))).isSameAs(declined);
		assertThat(record(kind.declining()).state()).isEqualTo(RecordState.COMPLETED);
		this.work.next = (key) -> CompletableFuture.completedFuture("charged");
		CompletableFuture<String> replay = kind.declining(this.payments, this.key);
		assertThat(failure(replay)).isInstanceOf(CardDeclinedException.class)
			.isNotSameAs(declined)
			.hasMessage("insufficient funds");
		assertThat(this.work.runs).hasValue(1);
		assertThat(this.outcomes.of(kind.declining())).containsExactly(Outcome.FAILED, Outcome.REPLAYED);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void listedFailureThatADependentStageWrapsIsStoredAndDeliveredUnwrapped(Kind kind) throws Exception {
		CardDeclinedException declined = new CardDeclinedException("insufficient funds");
		// A stage that depends on a failed one fails with a CompletionException around it
		this.work.next = (key) -> CompletableFuture.<String>failedFuture(declined).thenApply((value) -> value);
		assertThat(failure(kind.declining(this.payments, this.key))).isSameAs(declined);
		assertThat(record(kind.declining()).state()).isEqualTo(RecordState.COMPLETED);
		assertThat(failure(kind.declining(this.payments, this.key))).isExactlyInstanceOf(CardDeclinedException.class)
			.hasMessage("insufficient funds");
		assertThat(this.work.runs).hasValue(1);
	}

	@ParameterizedTest
	@EnumSource(names = { "STAGE", "MONO" })
	void unlistedFailureOfAMethodThatReplaysFailuresReleases(Kind kind) throws Exception {
		this.work.next = (key) -> CompletableFuture.failedFuture(new IllegalStateException("gateway down"));
		assertThat(failure(kind.declining(this.payments, this.key))).isInstanceOf(IllegalStateException.class);
		assertThat(record(kind.declining()).state()).isEqualTo(RecordState.FAILED);
		this.work.next = (key) -> CompletableFuture.completedFuture("charged");
		assertThat(kind.declining(this.payments, this.key).get(10, TimeUnit.SECONDS)).isEqualTo("charged");
		assertThat(this.work.runs).hasValue(2);
	}

	@Test
	void cancelledCallReleasesEvenWhenItsMethodReplaysCancellations() {
		CompletableFuture<String> pending = new CompletableFuture<>();
		this.work.next = (key) -> pending;
		CompletableFuture<String> call = this.payments.cancellable(this.key);
		call.cancel(true);
		await().atMost(Duration.ofSeconds(10)).until(() -> record("async.cancellable").state() == RecordState.FAILED);
	}

	@Test
	void monoSubscribedTwiceRunsOnceAndReplaysForTheSecondSubscription() {
		Mono<String> mono = this.payments.mono(this.key);
		assertThat(this.work.runs).as("nothing runs before a subscription").hasValue(0);
		assertThat(mono.block(Duration.ofSeconds(10))).isEqualTo("receipt-1");
		assertThat(mono.block(Duration.ofSeconds(10))).isEqualTo("receipt-1");
		assertThat(this.work.runs).hasValue(1);
		assertThat(this.outcomes.of(Kind.MONO)).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
	}

	@Test
	void emptyMonoIsReplayedAsAnEmptyMono() {
		assertThat(this.payments.emptyMono(this.key).blockOptional(Duration.ofSeconds(10))).isEmpty();
		assertThat(this.payments.emptyMono(this.key).blockOptional(Duration.ofSeconds(10))).isEmpty();
		assertThat(this.work.runs).hasValue(1);
		assertThat(this.outcomes.of("async.emptyMono")).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
	}

	@Test
	void voidStageIsReplayedAsACompletedStage() throws Exception {
		assertThat(this.payments.voidStage(this.key).toCompletableFuture().get(10, TimeUnit.SECONDS)).isNull();
		CompletableFuture<Void> replay = this.payments.voidStage(this.key).toCompletableFuture();
		assertThat(replay).isCompleted();
		assertThat(replay.get()).isNull();
		assertThat(this.work.runs).hasValue(1);
	}

	@Test
	void replayedStageIsAlreadyComplete() throws Exception {
		assertThat(this.payments.stage(this.key).get(10, TimeUnit.SECONDS)).isEqualTo("receipt-1");
		assertThat(this.payments.stage(this.key)).isCompletedWithValue("receipt-1");
	}

	@Test
	void methodsMonoSeesTheReactorContextOfTheSubscriber() {
		Mono<String> call = this.payments.contextual(this.key).contextWrite(Context.of("tenant", "acme"));
		assertThat(call.block(Duration.ofSeconds(10))).isEqualTo("tenant acme");
		assertThat(this.payments.contextual(this.key).block(Duration.ofSeconds(10))).isEqualTo("tenant acme");
		assertThat(this.work.runs).hasValue(1);
	}

	@Test
	void methodsMonoSeesTheReactorContextOfTheSubscriberAfterAWait() throws Exception {
		CompletableFuture<String> pending = new CompletableFuture<>();
		// The first run waits for pending, the run after the wait gets a value
		this.work.next = (key) -> (this.work.runs.get() == 1) ? pending : CompletableFuture.completedFuture("retried");
		CompletableFuture<String> first = this.payments.contextualWait(this.key)
			.contextWrite(Context.of("tenant", "first"))
			.toFuture();
		CompletableFuture<String> waiting = this.payments.contextualWait(this.key)
			.contextWrite(Context.of("tenant", "second"))
			.toFuture();
		assertThat(waiting).isNotDone();
		pending.completeExceptionally(new IllegalStateException("declined by the gateway"));
		assertThat(failure(first)).hasMessage("declined by the gateway");
		// The waiting call takes the released record over and runs the method on the
		// scheduler's thread, still in its subscriber's context
		assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo("tenant second retried");
	}

	@Test
	void cancelledCallIsObservedAsTheMethodsFailure() {
		CompletableFuture<String> pending = new CompletableFuture<>();
		this.work.next = (key) -> pending;
		CompletableFuture<String> call = this.payments.stage(this.key);
		call.cancel(true);
		assertThatExceptionOfType(CancellationException.class).isThrownBy(call::join);
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.outcomes.of(Kind.STAGE).isEmpty());
		assertThat(this.outcomes.of(Kind.STAGE)).containsExactly(Outcome.FAILED);
	}

	enum Kind {

		STAGE("async.stage") {
			@Override
			CompletableFuture<String> call(Payments payments, String key) {
				return payments.stage(key);
			}
		},

		STAGE_WAIT("async.stageWait") {
			@Override
			CompletableFuture<String> call(Payments payments, String key) {
				return payments.stageWait(key).toCompletableFuture();
			}
		},

		MONO("async.mono") {
			@Override
			CompletableFuture<String> call(Payments payments, String key) {
				return payments.mono(key).toFuture();
			}
		},

		MONO_WAIT("async.monoWait") {
			@Override
			CompletableFuture<String> call(Payments payments, String key) {
				return payments.monoWait(key).toFuture();
			}
		};

		final String name;

		Kind(String name) {
			this.name = name;
		}

		abstract CompletableFuture<String> call(Payments payments, String key);

		CompletableFuture<String> declining(Payments payments, String key) {
			return (this == MONO) ? payments.declineMono(key).toFuture() : payments.decline(key);
		}

		String declining() {
			return (this == MONO) ? "async.declineMono" : "async.decline";
		}

		Kind waiting() {
			return (this == STAGE || this == STAGE_WAIT) ? STAGE_WAIT : MONO_WAIT;
		}

	}

	static class Payments {

		private final Work work;

		Payments(Work work) {
			this.work = work;
		}

		@Idempotent(key = "#key", name = "async.stage", lockTimeout = "1s")
		public CompletableFuture<String> stage(String key) {
			return this.work.run(key);
		}

		@Idempotent(key = "#key", name = "async.stageWait", onInProgress = OnInProgress.WAIT, waitTimeout = "30s")
		public CompletionStage<String> stageWait(String key) {
			return this.work.run(key);
		}

		@Idempotent(key = "#key", name = "async.mono", lockTimeout = "1s")
		public Mono<String> mono(String key) {
			return Mono.fromFuture(this.work.run(key), false);
		}

		@Idempotent(key = "#key", name = "async.monoWait", onInProgress = OnInProgress.WAIT, waitTimeout = "30s")
		public Mono<String> monoWait(String key) {
			return Mono.fromFuture(this.work.run(key), false);
		}

		@Idempotent(key = "#key", name = "async.charge", payload = "#amount")
		public CompletableFuture<String> charge(String key, int amount) {
			return this.work.run(key);
		}

		@Idempotent(key = "#key", name = "async.refund", payload = "#amount")
		public Mono<String> refund(String key, int amount) {
			return Mono.fromFuture(this.work.run(key), false);
		}

		@Idempotent(key = "#key", name = "async.decline", replayFailures = CardDeclinedException.class)
		public CompletableFuture<String> decline(String key) {
			return this.work.run(key);
		}

		@Idempotent(key = "#key", name = "async.declineMono", replayFailures = CardDeclinedException.class)
		public Mono<String> declineMono(String key) {
			return Mono.fromFuture(this.work.run(key), false);
		}

		@Idempotent(key = "#key", name = "async.cancellable", replayFailures = CancellationException.class)
		public CompletableFuture<String> cancellable(String key) {
			return this.work.run(key);
		}

		@Idempotent(key = "#key", name = "async.contextual")
		public Mono<String> contextual(String key) {
			this.work.runs.incrementAndGet();
			return Mono.deferContextual((context) -> Mono.just("tenant " + context.get("tenant")));
		}

		@Idempotent(key = "#key", name = "async.contextualWait", onInProgress = OnInProgress.WAIT, waitTimeout = "30s")
		public Mono<String> contextualWait(String key) {
			CompletableFuture<String> value = this.work.run(key);
			return Mono.deferContextual((context) -> Mono.fromFuture(value, false)
				.map((result) -> "tenant " + context.get("tenant") + " " + result));
		}

		@Idempotent(key = "#key", name = "async.emptyMono")
		public Mono<String> emptyMono(String key) {
			this.work.runs.incrementAndGet();
			return Mono.empty();
		}

		@Idempotent(key = "#key", name = "async.voidStage")
		public CompletionStage<Void> voidStage(String key) {
			this.work.runs.incrementAndGet();
			return CompletableFuture.runAsync(() -> {
			});
		}

	}

	public static class CardDeclinedException extends Exception {

		public CardDeclinedException(String message) {
			super(message);
		}

	}

	static class Work {

		final AtomicInteger runs = new AtomicInteger();

		volatile Function<String, CompletableFuture<String>> next = (key) -> CompletableFuture
			.completedFuture("receipt-" + this.runs.get());

		CompletableFuture<String> run(String key) {
			this.runs.incrementAndGet();
			return this.next.apply(key);
		}

	}

	static class Outcomes implements IdempotencyListener {

		private final List<String> outcomes = new CopyOnWriteArrayList<>();

		@Override
		public void onOutcome(String name, Outcome outcome) {
			this.outcomes.add(name + ":" + outcome);
		}

		List<Outcome> of(Kind kind) {
			return of(kind.name);
		}

		List<Outcome> of(String name) {
			return this.outcomes.stream()
				.filter((outcome) -> outcome.startsWith(name + ":"))
				.map((outcome) -> Outcome.valueOf(outcome.substring(name.length() + 1)))
				.toList();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Import(AdvisorInfrastructure.class)
	static class Infrastructure {

		@Bean
		Outcomes outcomes() {
			return new Outcomes();
		}

		@Bean
		IdempotencyEngine idempotencyEngine(Outcomes outcomes) {
			return new IdempotencyEngine(new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency:"),
					IdempotencyDefaults.STANDARD, List.of(outcomes));
		}

	}

}
