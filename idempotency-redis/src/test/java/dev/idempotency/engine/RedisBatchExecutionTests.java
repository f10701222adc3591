package dev.idempotency.engine;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.idempotency.BatchOutcome;
import dev.idempotency.BatchOutcome.Executed;
import dev.idempotency.BatchOutcome.Failed;
import dev.idempotency.BatchOutcome.Replayed;
import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.BatchComplete;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class RedisBatchExecutionTests extends BatchExecutionTests {

	private static final String PREFIX = "idempotency:";

	@Override
	protected IdempotencyStore createStore() {
		return new RedisIdempotencyStore(TestRedis.get().connectionFactory(), PREFIX);
	}

	// A batch on one server goes in one script call per 256 items (BatchCalls.MAX_ITEMS):
	// 600 items in three
	@Test
	void batchIsAcquiredAndCompletedWithEveryScriptCallSentBeforeAnyReply() throws Exception {
		TestRedis redis = TestRedis.get();
		try (ReplyHoldingProxy proxy = new ReplyHoldingProxy(redis.host(), redis.port())) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory("127.0.0.1", proxy.port());
			try (IdempotencyEngine engine = new IdempotencyEngine(new RedisIdempotencyStore(factory, PREFIX),
					IdempotencyDefaults.STANDARD, List.of())) {
				IdempotentExecutor executor = executor(engine);
				// Connects, and has Redis cache the batch scripts
				executor.executeAll(name(), List.of(new Item("warm-up-1"), new Item("warm-up-2")), Item::id,
						String.class, this::effect);
				List<Item> items = new ArrayList<>();
				for (int i = 0; i < 600; i++) {
					items.add(new Item("item-" + i));
				}
				int[] sentBeforeAcquireReplies = new int[1];
				proxy.holdRepliesUntil(3);
				List<BatchOutcome<Item, String>> outcomes = executor.executeAll(name(), items, Item::id, String.class,
						(item) -> {
							if (item.id().equals("item-599")) {
								sentBeforeAcquireReplies[0] = proxy.scriptsSentWhileHeld();
								proxy.holdRepliesUntil(3);
							}
							return effect(item);
						});
				assertThat(sentBeforeAcquireReplies[0]).isEqualTo(3);
				assertThat(proxy.scriptsSentWhileHeld()).isEqualTo(3);
				assertThat(outcomes).hasSize(600).allMatch(Executed.class::isInstance);
				proxy.holdRepliesUntil(3);
				assertThat(executor.executeAll(name(), items, Item::id, String.class, this::effect)).hasSize(600)
					.allMatch(Replayed.class::isInstance);
				assertThat(proxy.scriptsSentWhileHeld()).isEqualTo(3);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void scriptsMissingFromTheServerAreSentInFullForEachItem() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			try (IdempotencyEngine engine = new IdempotencyEngine(new RedisIdempotencyStore(factory, PREFIX),
					IdempotencyDefaults.STANDARD, List.of())) {
				IdempotentExecutor executor = executor(engine);
				List<Item> items = List.of(new Item("a"), new Item("b"), new Item("c"));
				assertThat(executor.executeAll(name(), items, Item::id, String.class, this::effect))
					.allMatch(Executed.class::isInstance);
				try (RedisConnection connection = factory.getConnection()) {
					connection.scriptingCommands().scriptFlush();
				}
				assertThat(executor.executeAll(name(), items, Item::id, String.class, this::effect))
					.allMatch(Replayed.class::isInstance);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void scriptsMissingFromTheServerAreLoadedOnceForTheWholeBatch() throws Exception {
		try (RedisServer server = TestRedis.startPrivateServer();
				ReplyHoldingProxy proxy = new ReplyHoldingProxy(server.host(), server.port())) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory("127.0.0.1", proxy.port());
			try (IdempotencyEngine engine = new IdempotencyEngine(new RedisIdempotencyStore(factory, PREFIX),
					IdempotencyDefaults.STANDARD, List.of())) {
				IdempotentExecutor executor = executor(engine);
				List<Item> items = new ArrayList<>();
				for (int i = 0; i < 600; i++) {
					items.add(new Item("item-" + i));
				}
				assertThat(executor.executeAll(name(), items, Item::id, String.class, this::effect))
					.allMatch(Executed.class::isInstance);
				try (RedisConnection connection = factory.getConnection()) {
					connection.scriptingCommands().scriptFlush();
				}
				proxy.takeEvals();
				// After a restart or a failover, every script call gets NOSCRIPT (three
				// here, of 256 items at most): sending each script in full, one round
				// trip
				// after the other, would cost a batch of 100,000 items seconds
				assertThat(executor.executeAll(name(), items, Item::id, String.class, this::effect))
					.allMatch(Replayed.class::isInstance);
				assertThat(proxy.takeEvals()).isZero();
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void valueThatIsNotARecordInTheMiddleOfABatchFailsItAndAbandonsTheOtherItems() {
		RecordKey corrupt = new RecordKey(name(), "corrupt");
		try (RedisConnection connection = TestRedis.get().connectionFactory().getConnection()) {
			connection.stringCommands()
				.set((PREFIX + name() + ":corrupt").getBytes(StandardCharsets.UTF_8),
						"not a record".getBytes(StandardCharsets.UTF_8));
		}
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> batch(List.of(new Item("before"), new Item("corrupt"), new Item("after")), this::effect))
			.withMessageContaining("is not an idempotency record");
		assertThat(effects("before") + effects("corrupt") + effects("after")).isZero();
		assertThat(listener().outcomes()).containsExactly(Outcome.STORE_ERROR, Outcome.STORE_ERROR,
				Outcome.STORE_ERROR);
		AcquireRequest next = new AcquireRequest("next", Duration.ofMinutes(1), Duration.ofHours(1), null);
		for (String abandoned : List.of("before", "after")) {
			RecordKey key = new RecordKey(name(), abandoned);
			await().atMost(Duration.ofSeconds(10)).until(() -> store().acquire(key, next) instanceof Acquired);
			assertThat(store().acquire(key, next)).isEqualTo(new Acquired(2, false));
		}
		store().evict(corrupt);
	}

	@Test
	void valueThatIsNotARecordRunsOnlyItsOwnItemUnprotectedWhenTheStoreFailureProceeds() {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		RecordingListener listener = new RecordingListener();
		try (IdempotencyEngine engine = new IdempotencyEngine(createStore(),
				new IdempotencyDefaults(standard.settings(), StoreFailurePolicy.PROCEED, standard.maxKeyLength(),
						standard.maxResultSize(), standard.operations()),
				List.of(listener))) {
			IdempotentExecutor executor = executor(engine);
			executor.execute(name(), "done", String.class, () -> effect(new Item("done")));
			try (RedisConnection connection = TestRedis.get().connectionFactory().getConnection()) {
				connection.stringCommands()
					.set((PREFIX + name() + ":corrupt").getBytes(StandardCharsets.UTF_8),
							"not a record".getBytes(StandardCharsets.UTF_8));
			}
			List<BatchOutcome<Item, String>> outcomes = executor.executeAll(name(),
					List.of(new Item("done"), new Item("corrupt"), new Item("new")), Item::id, String.class,
					this::effect);
			// The store answered for "done" and "new": only "corrupt" runs unprotected,
			// as
			// three single calls would
			assertThat(effects("done")).isOne();
			assertThat(outcomes.get(0)).isEqualTo(new Replayed<>(new Item("done"), "done", "done#1"));
			assertThat(outcomes.get(1)).isInstanceOf(Executed.class);
			assertThat(outcomes.get(2)).isInstanceOf(Executed.class);
			assertThat(listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED, Outcome.BYPASSED,
					Outcome.EXECUTED);
			assertThat(executor.executeAll(name(), List.of(new Item("new")), Item::id, String.class, this::effect))
				.containsExactly(new Replayed<>(new Item("new"), "new", "new#1"));
			store().evict(new RecordKey(name(), "corrupt"));
		}
	}

	@Test
	void batchLongerToAnswerThanOneCommandTimeoutSucceedsWhileRepliesKeepComing() throws Exception {
		TestRedis redis = TestRedis.get();
		try (ReplyHoldingProxy proxy = new ReplyHoldingProxy(redis.host(), redis.port())) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory("127.0.0.1", proxy.port());
			try (IdempotencyEngine engine = new IdempotencyEngine(
					new RedisIdempotencyStore(factory, PREFIX, Duration.ofSeconds(1)), IdempotencyDefaults.STANDARD,
					List.of())) {
				IdempotentExecutor executor = executor(engine);
				// Connects, and has Redis cache the batch scripts
				executor.executeAll(name(), List.of(new Item("warm-up-1"), new Item("warm-up-2")), Item::id,
						String.class, this::effect);
				List<Item> items = new ArrayList<>();
				for (int i = 0; i < 1200; i++) {
					items.add(new Item("item-" + i));
				}
				// 1,200 acquires go in five script calls of at most 256 items: the
				// replies
				// (about 4,100 bytes each, 19,200 in all) take about two seconds to come,
				// each within about half a second of the one before: the command timeout
				// bounds the wait for each reply, not for the whole batch
				proxy.trickleReplies(1000, Duration.ofMillis(100));
				List<BatchOutcome<Item, String>> outcomes = executor.executeAll(name(), items, Item::id, String.class,
						this::effect);
				assertThat(outcomes).hasSize(1200).allMatch(Executed.class::isInstance);
				assertThat(items).allMatch((item) -> effects(item.id()) == 1);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void unreachableStoreFailsTheBatchBeforeAnythingRuns() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			RecordingListener listener = new RecordingListener();
			try (IdempotencyEngine engine = new IdempotencyEngine(new RedisIdempotencyStore(factory, PREFIX),
					IdempotencyDefaults.STANDARD, List.of(listener))) {
				server.stop();
				assertThatExceptionOfType(IdempotencyStoreException.class)
					.isThrownBy(() -> executor(engine).executeAll(name(), List.of(new Item("a"), new Item("b")),
							Item::id, String.class, this::effect))
					.withMessageContaining("acquire");
				assertThat(effects("a") + effects("b")).isZero();
				assertThat(listener.outcomes()).containsExactly(Outcome.STORE_ERROR, Outcome.STORE_ERROR);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void storeGoingAwayWhileTheWorkRunsFailsEveryItemThatRanWithCompletionException() {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		// A short lease: completion is retried while the lease lasts
		OperationSettings shortLease = new OperationSettings(Duration.ofSeconds(1), Duration.ofHours(1),
				OnInProgress.REJECT, Duration.ofSeconds(1));
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			RecordingListener listener = new RecordingListener();
			try (IdempotencyEngine engine = new IdempotencyEngine(new RedisIdempotencyStore(factory, PREFIX),
					new IdempotencyDefaults(shortLease, standard.onStoreFailure(), standard.maxKeyLength(),
							standard.maxResultSize(), standard.operations()),
					List.of(listener))) {
				List<BatchOutcome<Item, String>> outcomes = executor(engine).executeAll(name(),
						List.of(new Item("a"), new Item("b")), Item::id, String.class, (item) -> {
							if (item.id().equals("b")) {
								server.stop();
							}
							return effect(item);
						});
				assertThat(outcomes).allSatisfy((outcome) -> assertThat(((Failed<Item, String>) outcome).exception())
					.isInstanceOf(IdempotencyCompletionException.class)
					.hasMessageContaining("ran its method"));
				assertThat(listener.outcomes()).containsExactly(Outcome.STORE_ERROR, Outcome.STORE_ERROR);
			}
			finally {
				factory.destroy();
			}
		}
	}

	// Redis is away for longer than the lock timeout: the batch's completion times out
	// only then, without having reached it. Each item is then completed on its own, as a
	// single call retries its completion for a lock timeout after its first failure,
	// instead of being left IN_PROGRESS for the next delivery to run again.
	@Test
	void batchCompletionThatFailsAfterMoreThanALockTimeoutStillCompletesEachItemOnItsOwn() {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		Duration lockTimeout = Duration.ofMillis(500);
		OperationSettings shortLease = new OperationSettings(lockTimeout, Duration.ofHours(1), OnInProgress.REJECT,
				Duration.ofSeconds(1));
		IdempotencyStore slowBatches = new ForwardingStore(store()) {

			@Override
			public List<Boolean> completeAll(List<BatchComplete> batch) {
				// The slowness under test: a command that times out after the lock
				// timeout
				try {
					Thread.sleep(lockTimeout.plusMillis(100).toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				throw new IdempotencyStoreException("Redis command timed out");
			}

		};
		try (IdempotencyEngine engine = new IdempotencyEngine(slowBatches, new IdempotencyDefaults(shortLease,
				standard.onStoreFailure(), standard.maxKeyLength(), standard.maxResultSize(), standard.operations()),
				List.of())) {
			// Connects, and has Redis cache the scripts, on a long lease: a first reply
			// that slow would leave the batch too little of its lease to start
			RecordKey warmUp = new RecordKey(name(), "warm-up");
			store().acquire(warmUp, new AcquireRequest("warm-up", Duration.ofMinutes(1), Duration.ofHours(1), null));
			store().release(warmUp, "warm-up", 1, Duration.ofHours(1));
			List<BatchOutcome<Item, String>> outcomes = executor(engine).executeAll(name(),
					List.of(new Item("a"), new Item("b")), Item::id, String.class, this::effect);
			assertThat(outcomes).containsExactly(new Executed<>(new Item("a"), "a", "a#1"),
					new Executed<>(new Item("b"), "b", "b#1"));
			for (String key : List.of("a", "b")) {
				assertThat(store().read(new RecordKey(name(), key)))
					.hasValueSatisfying((record) -> assertThat(record.state()).isEqualTo(RecordState.COMPLETED));
			}
		}
	}

}
