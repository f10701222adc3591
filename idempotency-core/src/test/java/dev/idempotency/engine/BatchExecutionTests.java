package dev.idempotency.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.BatchOutcome;
import dev.idempotency.BatchOutcome.Executed;
import dev.idempotency.BatchOutcome.Failed;
import dev.idempotency.BatchOutcome.InProgress;
import dev.idempotency.BatchOutcome.KeyReused;
import dev.idempotency.BatchOutcome.Replayed;
import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyReplayException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;

import org.springframework.core.ParameterizedTypeReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Batches through {@link IdempotentExecutor#executeAll}, against every store.
 */
abstract class BatchExecutionTests {

	private static final ParameterizedTypeReference<String> STRING = ParameterizedTypeReference.forType(String.class);

	private final RecordingListener listener = new RecordingListener();

	private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

	private IdempotencyStore store;

	private IdempotencyEngine engine;

	private IdempotentExecutor executor;

	private String name;

	protected abstract IdempotencyStore createStore();

	@BeforeEach
	void setUp() {
		this.store = createStore();
		this.engine = new IdempotencyEngine(this.store, IdempotencyDefaults.STANDARD, List.of(this.listener));
		this.executor = executor(this.engine);
		this.name = "batch-" + UUID.randomUUID();
	}

	@AfterEach
	void closeEngine() {
		this.engine.close();
	}

	protected static IdempotentExecutor executor(IdempotencyEngine engine) {
		return new DefaultIdempotentExecutor(engine, new JacksonResultCodec(), new JacksonPayloadFingerprinter());
	}

	protected final IdempotencyStore store() {
		return this.store;
	}

	protected final IdempotentExecutor executor() {
		return this.executor;
	}

	protected final RecordingListener listener() {
		return this.listener;
	}

	protected final String name() {
		return this.name;
	}

	protected final String effect(Item item) {
		return item.id() + "#" + this.effects.computeIfAbsent(item.id(), (id) -> new AtomicInteger()).incrementAndGet();
	}

	protected final int effects(String id) {
		AtomicInteger count = this.effects.get(id);
		return (count != null) ? count.get() : 0;
	}

	protected final List<BatchOutcome<Item, String>> batch(List<Item> items, Function<Item, String> work) {
		return this.executor.executeAll(this.name, items, Item::id, Item::payload, String.class, work);
	}

	@Test
	void mixedBatchGetsOneOutcomePerItemInItemOrder() {
		this.executor.execute(this.name, "done", "p", STRING, () -> "stored");
		this.executor.execute(this.name, "reused", "first payload", STRING, () -> "stored");
		this.store.acquire(new RecordKey(this.name, "held"),
				new AcquireRequest("other", Duration.ofMinutes(1), Duration.ofHours(1), null));
		int before = this.listener.storeOperations().size();
		RuntimeException boom = new IllegalStateException("boom");
		List<String> ran = new ArrayList<>();
		List<BatchOutcome<Item, String>> outcomes = batch(List.of(new Item("new-1"), new Item("done", "p"),
				new Item("held"), new Item("reused", "other payload"), new Item("boom"), new Item("new-2")), (item) -> {
					ran.add(item.id());
					if (item.id().equals("boom")) {
						throw boom;
					}
					return effect(item);
				});
		assertThat(ran).containsExactly("new-1", "boom", "new-2");
		assertThat(outcomes).extracting(BatchOutcome::key)
			.containsExactly("new-1", "done", "held", "reused", "boom", "new-2");
		assertThat(outcomes.get(0)).isEqualTo(new Executed<>(new Item("new-1"), "new-1", "new-1#1"));
		assertThat(outcomes.get(1)).isEqualTo(new Replayed<>(new Item("done", "p"), "done", "stored"));
		assertThat(((InProgress<Item, String>) outcomes.get(2)).retryAfter()).isPositive()
			.isLessThanOrEqualTo(Duration.ofMinutes(1));
		assertThat(outcomes.get(3)).isEqualTo(new KeyReused<>(new Item("reused", "other payload"), "reused"));
		assertThat(((Failed<Item, String>) outcomes.get(4)).exception()).isSameAs(boom);
		assertThat(outcomes.get(5)).isEqualTo(new Executed<>(new Item("new-2"), "new-2", "new-2#1"));
		assertThat(this.listener.outcomes()).containsExactlyInAnyOrder(Outcome.EXECUTED, Outcome.EXECUTED,
				Outcome.EXECUTED, Outcome.EXECUTED, Outcome.REPLAYED, Outcome.IN_PROGRESS, Outcome.KEY_REUSE,
				Outcome.FAILED);
		assertThat(this.listener.storeOperations().subList(before, this.listener.storeOperations().size()))
			.containsExactly(StoreOperation.ACQUIRE, StoreOperation.RELEASE, StoreOperation.COMPLETE);
		assertThat(this.store.read(new RecordKey(this.name, "boom")).orElseThrow().state())
			.isEqualTo(RecordState.FAILED);
		assertThat(this.executor.execute(this.name, "new-2", String.class, () -> "again")).isEqualTo("new-2#1");
	}

	@Test
	void itemsWithTheSameKeyRunTheWorkOnceAndTheFirstDecides() {
		RuntimeException boom = new IllegalStateException("boom");
		List<BatchOutcome<Item, String>> outcomes = batch(List.of(new Item("a", "x"), new Item("b"), new Item("a", "x"),
				new Item("fails"), new Item("a", "other payload"), new Item("fails")), (item) -> {
					String effect = effect(item);
					if (item.id().equals("fails")) {
						throw boom;
					}
					return effect;
				});
		assertThat(effects("a")).isOne();
		assertThat(effects("fails")).isOne();
		assertThat(outcomes.get(0)).isEqualTo(new Executed<>(new Item("a", "x"), "a", "a#1"));
		assertThat(outcomes.get(1)).isInstanceOf(Executed.class);
		assertThat(outcomes.get(2)).isEqualTo(new Replayed<>(new Item("a", "x"), "a", "a#1"));
		assertThat(((Failed<Item, String>) outcomes.get(3)).exception()).isSameAs(boom);
		assertThat(outcomes.get(4)).isEqualTo(new KeyReused<>(new Item("a", "other payload"), "a"));
		assertThat(((Failed<Item, String>) outcomes.get(5)).exception()).isSameAs(boom);
		assertThat(this.listener.outcomes()).containsExactlyInAnyOrder(Outcome.EXECUTED, Outcome.EXECUTED,
				Outcome.REPLAYED, Outcome.FAILED, Outcome.KEY_REUSE, Outcome.FAILED);
	}

	@Test
	void listTheWorkChangesStillGetsOneOutcomePerItemItWasCalledWith() {
		// A listener that drains its buffer as it handles each record
		List<Item> items = new ArrayList<>(List.of(new Item("a"), new Item("b"), new Item("a"), new Item("c")));
		List<BatchOutcome<Item, String>> outcomes = batch(items, (item) -> {
			items.remove(0);
			items.add(new Item("added"));
			return effect(item);
		});
		assertThat(outcomes).containsExactly(new Executed<>(new Item("a"), "a", "a#1"),
				new Executed<>(new Item("b"), "b", "b#1"), new Replayed<>(new Item("a"), "a", "a#1"),
				new Executed<>(new Item("c"), "c", "c#1"));
		assertThat(effects("added")).isZero();
	}

	@Test
	void workThatInterruptsItsThreadStillCompletesEveryItemAndKeepsTheInterrupt() {
		List<BatchOutcome<Item, String>> outcomes;
		try {
			outcomes = batch(List.of(new Item("a"), new Item("interrupts"), new Item("fails")), (item) -> {
				if (item.id().equals("interrupts")) {
					Thread.currentThread().interrupt();
				}
				if (item.id().equals("fails")) {
					throw new IllegalStateException("fails with the thread interrupted");
				}
				return effect(item);
			});
		}
		finally {
			assertThat(Thread.interrupted()).isTrue();
		}
		assertThat(outcomes.get(0)).isInstanceOf(Executed.class);
		assertThat(outcomes.get(1)).isInstanceOf(Executed.class);
		assertThat(outcomes.get(2)).isInstanceOf(Failed.class);
		assertThat(this.store.read(new RecordKey(this.name, "interrupts")).orElseThrow().state())
			.isEqualTo(RecordState.COMPLETED);
		assertThat(this.store.read(new RecordKey(this.name, "fails")).orElseThrow().state())
			.isEqualTo(RecordState.FAILED);
	}

	@Test
	void secondBatchReplaysEveryResultWithoutRunningTheWork() {
		List<Item> items = List.of(new Item("a"), new Item("b"), new Item("c"));
		batch(items, this::effect);
		List<BatchOutcome<Item, String>> again = batch(items, this::effect);
		assertThat(again).containsExactly(new Replayed<>(new Item("a"), "a", "a#1"),
				new Replayed<>(new Item("b"), "b", "b#1"), new Replayed<>(new Item("c"), "c", "c#1"));
		assertThat(effects("a") + effects("b") + effects("c")).isEqualTo(3);
	}

	@Test
	void workSeesTheContextOfItsOwnItem() {
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.executor.execute(this.name, "second", String.class, () -> {
				throw new IllegalStateException("fails once, so the next attempt has fence 2");
			}));
		List<String> seen = new ArrayList<>();
		batch(List.of(new Item("first"), new Item("second")), (item) -> {
			IdempotencyContext context = IdempotencyContext.current();
			seen.add(context.name() + "/" + context.key() + "/" + context.fence() + "/" + context.isLeaseHeld());
			return "r";
		});
		assertThat(seen).containsExactly(this.name + "/first/1/true", this.name + "/second/2/true");
		assertThat(IdempotencyContext.isActive()).isFalse();
	}

	@Test
	void invalidKeyRefusesTheWholeBatchBeforeAnythingRuns() {
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> batch(List.of(new Item("a"), new Item(" ")), this::effect))
			.withMessageContaining("blank");
		assertThat(effects("a")).isZero();
		assertThat(this.store.read(new RecordKey(this.name, "a"))).isEmpty();
	}

	@Test
	void nullItemIsRefused() {
		List<Item> items = new ArrayList<>();
		items.add(new Item("a"));
		items.add(null);
		assertThatIllegalArgumentException().isThrownBy(() -> batch(items, this::effect))
			.withMessage("'items' must not contain null elements");
		assertThat(effects("a")).isZero();
	}

	@Test
	void emptyBatchHasNoOutcome() {
		assertThat(batch(List.of(), this::effect)).isEmpty();
		assertThat(this.listener.storeOperations()).isEmpty();
	}

	@Test
	void resultTooLargeToReplayIsExecutedAndLaterFailsToReplay() {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		try (IdempotencyEngine small = new IdempotencyEngine(this.store, new IdempotencyDefaults(standard.settings(),
				standard.onStoreFailure(), standard.maxKeyLength(), 16, standard.operations()), List.of())) {
			IdempotentExecutor executor = executor(small);
			List<Item> items = List.of(new Item("large"), new Item("small"));
			Function<Item, String> work = (item) -> item.id().equals("large") ? "x".repeat(100) : "s";
			List<BatchOutcome<Item, String>> first = executor.executeAll(this.name, items, Item::id, String.class,
					work);
			assertThat(first).containsExactly(new Executed<>(new Item("large"), "large", "x".repeat(100)),
					new Executed<>(new Item("small"), "small", "s"));
			List<BatchOutcome<Item, String>> second = executor.executeAll(this.name, items, Item::id, String.class,
					work);
			assertThat(((Failed<Item, String>) second.get(0)).exception())
				.isInstanceOf(IdempotencyReplayException.class)
				.hasMessageContaining("max-result-size");
			assertThat(second.get(1)).isEqualTo(new Replayed<>(new Item("small"), "small", "s"));
		}
	}

	@Test
	void itemWhoseRecordWasTakenOverMeanwhileFailsWithLockLostAndTheOthersComplete() {
		RecordKey stolen = new RecordKey(this.name, "stolen");
		List<BatchOutcome<Item, String>> outcomes = batch(List.of(new Item("stolen"), new Item("kept")), (item) -> {
			if (item.id().equals("stolen")) {
				this.store.evict(stolen);
				this.store.acquire(stolen,
						new AcquireRequest("thief", Duration.ofMinutes(1), Duration.ofHours(1), null));
			}
			return effect(item);
		});
		assertThat(((Failed<Item, String>) outcomes.get(0)).exception())
			.isInstanceOf(IdempotencyLockLostException.class);
		assertThat(outcomes.get(1)).isEqualTo(new Executed<>(new Item("kept"), "kept", "kept#1"));
		assertThat(this.listener.outcomes()).containsExactlyInAnyOrder(Outcome.LOCK_LOST, Outcome.EXECUTED);
		assertThat(this.store.read(stolen).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
	}

	@Test
	void errorFromTheWorkCompletesTheItemsThatRanReleasesTheOthersAndIsThrown() {
		StopError stop = new StopError();
		assertThatExceptionOfType(StopError.class)
			.isThrownBy(() -> batch(List.of(new Item("ran"), new Item("stops"), new Item("never")), (item) -> {
				if (item.id().equals("stops")) {
					throw stop;
				}
				return effect(item);
			}))
			.isSameAs(stop);
		assertThat(effects("never")).isZero();
		assertThat(this.store.read(new RecordKey(this.name, "ran")).orElseThrow().state())
			.isEqualTo(RecordState.COMPLETED);
		assertThat(this.store.read(new RecordKey(this.name, "stops")).orElseThrow().state())
			.isEqualTo(RecordState.FAILED);
		assertThat(this.store.read(new RecordKey(this.name, "never")).orElseThrow().state())
			.isEqualTo(RecordState.FAILED);
	}

	@Test
	void itemWhoseRecordWasTakenOverBeforeItsTurnIsNotRunAndFailsWithLockLost() {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		Duration lease = Duration.ofMillis(300);
		OperationSettings shortLease = new OperationSettings(lease, Duration.ofHours(1), OnInProgress.REJECT,
				Duration.ofSeconds(1));
		RecordingListener listener = new RecordingListener();
		AtomicInteger renewals = new AtomicInteger();
		IdempotencyListener renewalCounter = new IdempotencyListener() {

			@Override
			public void onStoreOperation(StoreOperation operation, String store, long nanos, boolean succeeded) {
				if (operation == StoreOperation.RENEW) {
					renewals.incrementAndGet();
				}
			}

		};
		try (IdempotencyEngine engine = new IdempotencyEngine(this.store, new IdempotencyDefaults(shortLease,
				standard.onStoreFailure(), standard.maxKeyLength(), standard.maxResultSize(), standard.operations()),
				List.of(listener, renewalCounter))) {
			RecordKey stolen = new RecordKey(this.name, "stolen");
			List<BatchOutcome<Item, String>> outcomes = executor(engine).executeAll(this.name,
					List.of(new Item("first"), new Item("stolen")), Item::id, String.class, (item) -> {
						if (item.id().equals("first")) {
							// The batch's lease of "stolen" ran out (a pause, renewals
							// that
							// failed) and another attempt took the record over
							this.store.evict(stolen);
							this.store.acquire(stolen,
									new AcquireRequest("thief", Duration.ofMinutes(1), Duration.ofHours(1), null));
							// Until renewals of both records answered a few times since
							int awaited = renewals.get() + 5;
							await().atMost(lease.multipliedBy(20)).until(() -> renewals.get() >= awaited);
						}
						return effect(item);
					});
			assertThat(effects("stolen")).isZero();
			assertThat(((Failed<Item, String>) outcomes.get(1)).exception())
				.isInstanceOf(IdempotencyLockLostException.class);
			assertThat(outcomes.get(0)).isEqualTo(new Executed<>(new Item("first"), "first", "first#1"));
			assertThat(listener.outcomes()).containsExactlyInAnyOrder(Outcome.EXECUTED, Outcome.LOCK_LOST);
			// Still the thief's: its acquire, sent again, finds its own attempt
			assertThat(this.store.acquire(stolen,
					new AcquireRequest("thief", Duration.ofMinutes(1), Duration.ofHours(1), null)))
				.isInstanceOf(AcquireResult.Acquired.class);
		}
	}

	@Test
	void leasesOfEveryItemAreRenewedWhileLaterItemsRun() {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		Duration lease = Duration.ofMillis(300);
		OperationSettings shortLease = new OperationSettings(lease, Duration.ofHours(1), OnInProgress.REJECT,
				Duration.ofSeconds(1));
		try (IdempotencyEngine engine = new IdempotencyEngine(this.store, new IdempotencyDefaults(shortLease,
				standard.onStoreFailure(), standard.maxKeyLength(), standard.maxResultSize(), standard.operations()),
				List.of())) {
			RecordKey first = new RecordKey(this.name, "first");
			AcquireRequest other = new AcquireRequest("other", lease, Duration.ofHours(1), null);
			List<BatchOutcome<Item, String>> outcomes = executor(engine).executeAll(this.name,
					List.of(new Item("first"), new Item("slow")), Item::id, String.class, (item) -> {
						if (item.id().equals("slow")) {
							await().during(lease.multipliedBy(4))
								.atMost(lease.multipliedBy(20))
								.until(() -> this.store.acquire(first, other) instanceof AcquireResult.InProgress);
						}
						return effect(item);
					});
			assertThat(outcomes).allMatch(Executed.class::isInstance);
		}
	}

	@Test
	void concurrentBatchesOverOverlappingKeysHaveExactlyOneEffectPerKey() throws Exception {
		int threads = 4;
		int keys = 40;
		CountDownLatch start = new CountDownLatch(1);
		List<BatchOutcome<Item, String>> all = new CopyOnWriteArrayList<>();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> batches = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				List<Item> items = new ArrayList<>();
				for (int k = 0; k < keys; k++) {
					items.add(new Item("key-" + k));
				}
				Collections.shuffle(items);
				batches.add(pool.submit(() -> {
					start.await();
					all.addAll(batch(items, this::effect));
					return null;
				}));
			}
			start.countDown();
			for (Future<?> batch : batches) {
				batch.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		for (int k = 0; k < keys; k++) {
			assertThat(effects("key-" + k)).as("effects of key-" + k).isOne();
		}
		assertThat(all).hasSize(threads * keys)
			.allMatch((outcome) -> outcome instanceof Executed || outcome instanceof Replayed
					|| outcome instanceof InProgress);
		assertThat(all).filteredOn(Executed.class::isInstance).hasSize(keys);
		assertThat(batch(List.of(new Item("key-0")), this::effect))
			.containsExactly(new Replayed<>(new Item("key-0"), "key-0", "key-0#1"));
	}

	/**
	 * An item of a batch.
	 *
	 * @param id its key
	 * @param payload its payload
	 */
	record Item(String id, String payload) {

		Item(String id) {
			this(id, "payload of " + id);
		}

	}

	static final class StopError extends Error {

		private static final long serialVersionUID = 1L;

	}

}
