package dev.idempotency.engine;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.util.concurrent.FastThreadLocalThread;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link IdempotencyEngine#executeAsync} against Redis: what the asynchronous path does
 * beyond what the {@code @Idempotent} method tests show.
 */
class RedisAsyncExecutionTests {

	private final RecordingListener listener = new RecordingListener();

	private final IdempotencyEngine engine = new IdempotencyEngine(
			new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency:"),
			IdempotencyDefaults.STANDARD, List.of(this.listener));

	@AfterEach
	void closeEngine() {
		this.engine.close();
	}

	private static Operation operation(OnInProgress onInProgress) {
		return new Operation("async-" + UUID.randomUUID(),
				new OperationSettings(Duration.ofSeconds(1), Duration.ofHours(1), onInProgress, Duration.ofSeconds(30)),
				new JacksonResultCodec(JsonMapper.builder().build()).forType(ResolvableType.forClass(String.class)),
				"the test's key");
	}

	private static IdempotencyDefaults onStoreFailure(StoreFailurePolicy policy) {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		return new IdempotencyDefaults(standard.settings(), policy, standard.maxKeyLength(), standard.maxResultSize(),
				standard.operations());
	}

	private static Throwable failure(CompletableFuture<?> future) {
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> future.get(30, TimeUnit.SECONDS));
		return future.handle((value, ex) -> ex).join();
	}

	@Test
	void replayTellsTheInvocationBeforeTheValueIsDelivered() throws Exception {
		Operation operation = operation(OnInProgress.REJECT);
		this.engine.executeAsync(operation, "k", null, () -> CompletableFuture.completedFuture("first"))
			.get(10, TimeUnit.SECONDS);
		List<String> events = new CopyOnWriteArrayList<>();
		CompletableFuture<@Nullable Object> replay = this.engine.executeAsync(operation, "k", null,
				new AsyncInvocation() {

					@Override
					public CompletionStage<?> start() {
						throw new AssertionError("a replay must not run the method");
					}

					@Override
					public void replayed() {
						events.add("replayed");
					}

				});
		replay.thenAccept((value) -> events.add("delivered " + value)).get(10, TimeUnit.SECONDS);
		assertThat(events).containsExactly("replayed", "delivered first");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
	}

	@Test
	void valueArrivingOnAnEventLoopThreadIsRecordedOnAThreadOfTheEngine() throws Exception {
		List<String> completingThreads = new CopyOnWriteArrayList<>();
		IdempotencyListener threads = new IdempotencyListener() {

			@Override
			public void onStoreOperation(StoreOperation operation, String store, long nanos, boolean succeeded) {
				if (operation == StoreOperation.COMPLETE) {
					completingThreads.add(Thread.currentThread().getName());
				}
			}

		};
		try (IdempotencyEngine engine = new IdempotencyEngine(
				new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency:"),
				IdempotencyDefaults.STANDARD, List.of(threads))) {
			CompletableFuture<String> pending = new CompletableFuture<>();
			CompletableFuture<@Nullable Object> call = engine.executeAsync(operation(OnInProgress.REJECT), "k", null,
					() -> pending);
			Thread eventLoop = new FastThreadLocalThread(() -> pending.complete("from the event loop"),
					"test-event-loop");
			eventLoop.start();
			assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("from the event loop");
			assertThat(completingThreads).singleElement(as(InstanceOfAssertFactories.STRING))
				.startsWith("idempotency-complete-");
		}
	}

	// Recording a value handed off an event loop may take long (a store slow for some
	// keys, a completion retried while the store fails): completions still in progress,
	// more of them than the four threads the engine once had, must not hold up an
	// unrelated one that arrives after them.
	@Test
	void slowCompletionsHandedOffEventLoopsDoNotHoldUpAnUnrelatedOne() throws Exception {
		int slow = 16;
		CountDownLatch slowStarted = new CountDownLatch(slow);
		CountDownLatch finishSlow = new CountDownLatch(1);
		IdempotencyStore slowForSomeKeys = new ForwardingStore(
				new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency:")) {

			@Override
			public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
				if (key.key().startsWith("slow")) {
					slowStarted.countDown();
					awaitQuietly(finishSlow);
				}
				return super.complete(key, owner, fence, result, retention);
			}

		};
		try (IdempotencyEngine engine = new IdempotencyEngine(slowForSomeKeys, IdempotencyDefaults.STANDARD,
				List.of())) {
			Operation operation = operation(OnInProgress.REJECT);
			List<CompletableFuture<String>> slowValues = new ArrayList<>();
			List<CompletableFuture<@Nullable Object>> slowCalls = new ArrayList<>();
			for (int i = 0; i < slow; i++) {
				CompletableFuture<String> value = new CompletableFuture<>();
				slowValues.add(value);
				slowCalls.add(engine.executeAsync(operation, "slow-" + i, null, () -> value));
			}
			CompletableFuture<String> unrelatedValue = new CompletableFuture<>();
			CompletableFuture<@Nullable Object> unrelated = engine.executeAsync(operation, "unrelated", null,
					() -> unrelatedValue);
			Thread eventLoop = new FastThreadLocalThread(() -> {
				for (int i = 0; i < slow; i++) {
					slowValues.get(i).complete("slow " + i);
				}
				unrelatedValue.complete("unrelated");
			}, "test-event-loop");
			try {
				eventLoop.start();
				assertThat(unrelated).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("unrelated");
				assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
				assertThat(slowCalls).noneMatch(CompletableFuture::isDone);
			}
			finally {
				finishSlow.countDown();
			}
			for (int i = 0; i < slow; i++) {
				assertThat(slowCalls.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("slow " + i);
			}
		}
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Test
	void valueArrivingOnAnEventLoopThreadAfterTheEngineClosedIsStillRecordedOffIt() throws Exception {
		List<String> completingThreads = new CopyOnWriteArrayList<>();
		IdempotencyListener threads = new IdempotencyListener() {

			@Override
			public void onStoreOperation(StoreOperation operation, String store, long nanos, boolean succeeded) {
				if (operation == StoreOperation.COMPLETE) {
					completingThreads.add(Thread.currentThread().getName());
				}
			}

		};
		IdempotencyEngine engine = new IdempotencyEngine(
				new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency:"),
				IdempotencyDefaults.STANDARD, List.of(threads));
		try {
			Operation operation = operation(OnInProgress.REJECT);
			CompletableFuture<String> pending = new CompletableFuture<>();
			CompletableFuture<@Nullable Object> call = engine.executeAsync(operation, "k", null, () -> pending);
			// The application shuts down while the value is on its way
			engine.close();
			Thread eventLoop = new FastThreadLocalThread(() -> pending.complete("late"), "test-event-loop");
			eventLoop.start();
			assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("late");
			assertThat(completingThreads).singleElement(as(InstanceOfAssertFactories.STRING))
				.startsWith("idempotency-complete-");
			assertThat(engine.getStore().read(new RecordKey(operation.name(), "k")).orElseThrow().state())
				.isEqualTo(RecordState.COMPLETED);
		}
		finally {
			engine.close();
		}
	}

	@Test
	void lazyCallStartedOnAnEventLoopThreadAcquiresOffIt() throws Exception {
		List<String> acquiringThreads = new CopyOnWriteArrayList<>();
		IdempotencyListener threads = new IdempotencyListener() {

			@Override
			public void onStoreOperation(StoreOperation operation, String store, long nanos, boolean succeeded) {
				if (operation == StoreOperation.ACQUIRE) {
					acquiringThreads.add(Thread.currentThread().getName());
				}
			}

		};
		try (IdempotencyEngine engine = new IdempotencyEngine(
				new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency:"),
				IdempotencyDefaults.STANDARD, List.of(threads))) {
			Operation operation = operation(OnInProgress.REJECT);
			List<String> methodThreads = new CopyOnWriteArrayList<>();
			CompletableFuture<CompletableFuture<@Nullable Object>> started = new CompletableFuture<>();
			AsyncInvocation subscription = new AsyncInvocation() {

				@Override
				public CompletionStage<?> start() {
					methodThreads.add(Thread.currentThread().getName());
					return CompletableFuture.completedFuture("value");
				}

				@Override
				public boolean isLazy() {
					return true;
				}

			};
			Thread eventLoop = new FastThreadLocalThread(
					() -> started.complete(engine.executeAsync(operation, "k", null, subscription)), "test-event-loop");
			eventLoop.start();
			CompletableFuture<@Nullable Object> call = started.get(10, TimeUnit.SECONDS);
			assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("value");
			assertThat(acquiringThreads).singleElement(as(InstanceOfAssertFactories.STRING))
				.startsWith("idempotency-complete-");
			assertThat(methodThreads).singleElement(as(InstanceOfAssertFactories.STRING))
				.startsWith("idempotency-complete-");
		}
	}

	@Test
	void replayOfAStageOnAnEventLoopThreadIsAlreadyComplete() throws Exception {
		Operation operation = operation(OnInProgress.REJECT);
		this.engine.executeAsync(operation, "k", null, () -> CompletableFuture.completedFuture("first"))
			.get(10, TimeUnit.SECONDS);
		CompletableFuture<CompletableFuture<@Nullable Object>> replayed = new CompletableFuture<>();
		Thread eventLoop = new FastThreadLocalThread(
				() -> replayed.complete(this.engine.executeAsync(operation, "k", null, () -> {
					throw new AssertionError("a replay must not run the method");
				})), "test-event-loop");
		eventLoop.start();
		assertThat(replayed.get(10, TimeUnit.SECONDS)).isCompletedWithValue("first");
	}

	@Test
	void valueOfAReactiveRedisCommandCompletesItsRecord() throws Exception {
		ReactiveRedisConnection reactive = TestRedis.get().connectionFactory().getReactiveConnection();
		try {
			Operation operation = operation(OnInProgress.REJECT);
			// Lettuce's event loop threads each serve several connections: some of these
			// values arrive on the thread that also reads the store's replies
			for (int i = 0; i < 8; i++) {
				ByteBuffer key = ByteBuffer.wrap(("async-test-" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8));
				CompletableFuture<@Nullable Object> call = this.engine.executeAsync(operation, "k" + i, null,
						() -> reactive.stringCommands()
							.set(key, ByteBuffer.wrap(new byte[] { 1 }))
							.map((set) -> "set " + set)
							.toFuture());
				assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("set true");
			}
		}
		finally {
			reactive.close();
		}
	}

	@Test
	void cancellingACallWhoseStageIgnoresCancellationReleasesTheRecordAtOnce() throws Exception {
		Operation operation = operation(OnInProgress.REJECT);
		RecordKey record = new RecordKey(operation.name(), "k");
		// A stage that a caller's cancellation cannot reach: cancelling its
		// toCompletableFuture() cancels a copy
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<@Nullable Object> call = this.engine.executeAsync(operation, "k", null,
				work::minimalCompletionStage);
		assertThat(call.cancel(true)).isTrue();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.engine.getStore().read(record).orElseThrow().state() == RecordState.FAILED);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.FAILED);
		// The work's late value is not recorded over the release, nor counted again
		work.complete("late");
		assertThat(this.engine.getStore().read(record).orElseThrow().state()).isEqualTo(RecordState.FAILED);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.FAILED);
		assertThat(this.engine.executeAsync(operation, "k", null, () -> CompletableFuture.completedFuture("retried"))
			.get(10, TimeUnit.SECONDS)).isEqualTo("retried");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.FAILED, Outcome.EXECUTED);
	}

	@Test
	void cancelWhileTheValueIsBeingDeliveredLeavesTheRecordToTheValue() {
		assertCancelWhileTheValueIsBeingDeliveredLeavesTheRecordToTheValue(new CompletableFuture<>());
	}

	@Test
	void cancelWhileTheValueOfAStageThatIgnoresCancellationIsBeingDeliveredLeavesTheRecordToTheValue() {
		assertCancelWhileTheValueIsBeingDeliveredLeavesTheRecordToTheValue(new UncancellableStage<>());
	}

	private void assertCancelWhileTheValueIsBeingDeliveredLeavesTheRecordToTheValue(CompletableFuture<String> work) {
		Operation operation = operation(OnInProgress.REJECT);
		CompletableFuture<@Nullable Object> call = this.engine.executeAsync(operation, "k", null, () -> work);
		// Registered after the engine's callback, so run before it: the stage holds its
		// value, the engine has not heard of it yet, and the caller cancels
		work.whenComplete((value, failure) -> call.cancel(true));
		work.complete("value");
		assertThat(call).isCancelled();
		assertThat(this.engine.getStore().read(new RecordKey(operation.name(), "k")).orElseThrow().state())
			.isEqualTo(RecordState.COMPLETED);
		assertThat(this.listener.storeOperations()).doesNotContain(StoreOperation.RELEASE);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED);
	}

	@Test
	void cancelAfterTheValueArrivedLeavesTheRecordCompletedForDuplicates() throws Exception {
		CountDownLatch completing = new CountDownLatch(1);
		CountDownLatch proceed = new CountDownLatch(1);
		IdempotencyStore store = new ForwardingStore(
				new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency:")) {

			@Override
			public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
				completing.countDown();
				try {
					proceed.await(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				return super.complete(key, owner, fence, result, retention);
			}

		};
		RecordingListener listener = new RecordingListener();
		try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of(listener))) {
			Operation operation = operation(OnInProgress.REJECT);
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<@Nullable Object> call = engine.executeAsync(operation, "k", null, () -> work);
			Thread valueArrives = new Thread(() -> work.complete("value"), "test-value");
			valueArrives.start();
			assertThat(completing.await(10, TimeUnit.SECONDS)).isTrue();
			// The value arrived and its record is being completed: too late to release
			assertThat(call.cancel(true)).isTrue();
			proceed.countDown();
			valueArrives.join(10_000);
			assertThat(valueArrives.isAlive()).isFalse();
			assertThat(store.read(new RecordKey(operation.name(), "k")).orElseThrow().state())
				.isEqualTo(RecordState.COMPLETED);
			assertThat(listener.storeOperations()).doesNotContain(StoreOperation.RELEASE);
			assertThat(engine.executeAsync(operation, "k", null, () -> {
				throw new AssertionError("a replay must not run the method");
			}).get(10, TimeUnit.SECONDS)).isEqualTo("value");
			assertThat(listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
		}
	}

	@Test
	void invalidKeyFailsTheFutureAndIsCounted() {
		AtomicInteger runs = new AtomicInteger();
		CompletableFuture<@Nullable Object> call = this.engine.executeAsync(operation(OnInProgress.REJECT), " ", null,
				() -> CompletableFuture.completedFuture("r" + runs.incrementAndGet()));
		assertThat(failure(call)).isInstanceOf(IdempotencyKeyException.class);
		assertThat(runs).hasValue(0);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.INVALID);
	}

	@Test
	void nullStageCompletesTheRecordWithNull() throws Exception {
		Operation operation = operation(OnInProgress.REJECT);
		assertThat(this.engine.executeAsync(operation, "k", null, () -> null).get(10, TimeUnit.SECONDS)).isNull();
		assertThat(this.engine.executeAsync(operation, "k", null, () -> {
			throw new AssertionError("a replay must not run the method");
		}).get(10, TimeUnit.SECONDS)).isNull();
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
	}

	@Test
	void methodsThatBlockAfterAWaitDoNotHoldUpOtherWaits() throws Exception {
		Operation operation = operation(OnInProgress.WAIT);
		CountDownLatch blocked = new CountDownLatch(2);
		CountDownLatch unblock = new CountDownLatch(1);
		List<CompletableFuture<@Nullable Object>> blocking = new ArrayList<>();
		try {
			// Two waits take over a failed attempt, and run a method that blocks before
			// it
			// returns its stage (as a method may, whose stage is completed at once)
			for (String key : List.of("a", "b")) {
				CompletableFuture<String> failing = new CompletableFuture<>();
				this.engine.executeAsync(operation, key, null, () -> failing);
				blocking.add(this.engine.executeAsync(operation, key, null, () -> {
					blocked.countDown();
					unblock.await();
					return CompletableFuture.completedFuture("unblocked");
				}));
				failing.completeExceptionally(new IllegalStateException("gateway down"));
			}
			assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<String> first = new CompletableFuture<>();
			this.engine.executeAsync(operation, "c", null, () -> first);
			CompletableFuture<@Nullable Object> waiting = this.engine.executeAsync(operation, "c", null,
					() -> CompletableFuture.completedFuture("not run"));
			first.complete("c's value");
			assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo("c's value");
		}
		finally {
			unblock.countDown();
		}
		for (CompletableFuture<@Nullable Object> call : blocking) {
			assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("unblocked");
		}
	}

	@Test
	void closingTheEngineEndsAPendingWaitAsInProgress() {
		Operation operation = operation(OnInProgress.WAIT);
		CompletableFuture<String> pending = new CompletableFuture<>();
		this.engine.executeAsync(operation, "k", null, () -> pending);
		CompletableFuture<@Nullable Object> waiting = this.engine.executeAsync(operation, "k", null,
				() -> CompletableFuture.completedFuture("second"));
		assertThat(waiting).isNotDone();
		this.engine.close();
		assertThat(failure(waiting)).isInstanceOf(IdempotencyInProgressException.class);
		pending.complete("first");
	}

	@Test
	void storeGoingAwayBeforeTheValueArrivesFailsTheCallWithTheStoresException() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			RecordingListener listener = new RecordingListener();
			try (IdempotencyEngine engine = new IdempotencyEngine(new RedisIdempotencyStore(factory, "idempotency:"),
					IdempotencyDefaults.STANDARD, List.of(listener))) {
				CompletableFuture<String> pending = new CompletableFuture<>();
				CompletableFuture<@Nullable Object> call = engine.executeAsync(operation(OnInProgress.REJECT), "k",
						null, () -> pending);
				server.stop();
				pending.complete("effect done");
				assertThat(failure(call)).isInstanceOf(IdempotencyCompletionException.class)
					.hasMessageContaining("ran its method");
				assertThat(listener.outcomes()).containsExactly(Outcome.STORE_ERROR);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void unreachableStoreFailsTheFutureBeforeTheMethodRuns() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			RecordingListener listener = new RecordingListener();
			try (IdempotencyEngine engine = new IdempotencyEngine(new RedisIdempotencyStore(factory, "idempotency:"),
					onStoreFailure(StoreFailurePolicy.FAIL), List.of(listener))) {
				server.stop();
				AtomicInteger runs = new AtomicInteger();
				CompletableFuture<@Nullable Object> call = engine.executeAsync(operation(OnInProgress.REJECT), "k",
						null, () -> CompletableFuture.completedFuture("r" + runs.incrementAndGet()));
				assertThat(failure(call)).isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("acquire");
				assertThat(runs).hasValue(0);
				assertThat(listener.outcomes()).containsExactly(Outcome.STORE_ERROR);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void unreachableStoreWithProceedRunsTheMethodUnprotected() throws Exception {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			RecordingListener listener = new RecordingListener();
			try (IdempotencyEngine engine = new IdempotencyEngine(new RedisIdempotencyStore(factory, "idempotency:"),
					onStoreFailure(StoreFailurePolicy.PROCEED), List.of(listener))) {
				server.stop();
				AtomicInteger runs = new AtomicInteger();
				Operation operation = operation(OnInProgress.REJECT);
				for (int i = 1; i <= 2; i++) {
					assertThat(engine
						.executeAsync(operation, "k", null,
								() -> CompletableFuture.completedFuture("r" + runs.incrementAndGet()))
						.get(30, TimeUnit.SECONDS)).isEqualTo("r" + i);
				}
				assertThat(listener.outcomes()).containsExactly(Outcome.BYPASSED, Outcome.BYPASSED);
			}
			finally {
				factory.destroy();
			}
		}
	}

	// A stage whose toCompletableFuture() is a copy, which cancelling does not reach
	static final class UncancellableStage<T> extends CompletableFuture<T> {

		@Override
		public CompletableFuture<T> toCompletableFuture() {
			return copy();
		}

	}

}
