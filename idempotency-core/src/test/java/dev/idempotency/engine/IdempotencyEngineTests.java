package dev.idempotency.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyPayloadException;
import dev.idempotency.IdempotencyReplayException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import dev.idempotency.test.InProgress;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Behaviour of one call, against every store.
 */
abstract class IdempotencyEngineTests {

	private static final JacksonResultCodec CODEC = new JacksonResultCodec(JsonMapper.builder().build());

	private static final OperationSettings REJECT = new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1),
			OnInProgress.REJECT, Duration.ofSeconds(5));

	private final RecordingListener listener = new RecordingListener();

	private IdempotencyStore store;

	private IdempotencyEngine engine;

	private String name;

	protected abstract IdempotencyStore createStore();

	@BeforeEach
	void setUp() {
		this.store = createStore();
		this.engine = engine(IdempotencyDefaults.STANDARD);
		this.name = "op-" + UUID.randomUUID();
	}

	@AfterEach
	void closeEngine() {
		this.engine.close();
	}

	private IdempotencyEngine engine(IdempotencyDefaults defaults) {
		return new IdempotencyEngine(this.store, defaults, List.of(this.listener));
	}

	private Operation operation(OperationSettings settings, Class<?> type) {
		return new Operation(this.name, settings,
				(type == void.class) ? null : CODEC.forType(ResolvableType.forClass(type)), "the test's key");
	}

	private Object call(Operation operation, Object key, Invocation invocation) throws Throwable {
		return this.engine.execute(operation, key, null, invocation);
	}

	@Test
	void runsOnceAndReplaysTheStoredResult() throws Throwable {
		Operation operation = operation(REJECT, String.class);
		AtomicInteger runs = new AtomicInteger();
		Object first = call(operation, "k", () -> "receipt-" + runs.incrementAndGet());
		Object second = call(operation, "k", () -> "receipt-" + runs.incrementAndGet());
		assertThat(first).isEqualTo("receipt-1");
		assertThat(second).isEqualTo("receipt-1");
		assertThat(runs).hasValue(1);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
	}

	@Test
	void keysAreSeparatePerOperationName() throws Throwable {
		Operation one = operation(REJECT, String.class);
		Operation other = new Operation(this.name + "-other", REJECT, one.codec(), "the test's key");
		assertThat(call(one, "k", () -> "one")).isEqualTo("one");
		assertThat(call(other, "k", () -> "other")).isEqualTo("other");
	}

	@Test
	void voidOperationReplaysNullWithoutRunning() throws Throwable {
		Operation operation = operation(REJECT, void.class);
		AtomicInteger runs = new AtomicInteger();
		assertThat(call(operation, "k", () -> {
			runs.incrementAndGet();
			return null;
		})).isNull();
		assertThat(call(operation, "k", () -> {
			runs.incrementAndGet();
			return null;
		})).isNull();
		assertThat(runs).hasValue(1);
	}

	@Test
	void failureRethrowsTheSameExceptionAndTheNextCallRunsWithAHigherFence() throws Throwable {
		Operation operation = operation(REJECT, Long.class);
		IllegalStateException boom = new IllegalStateException("card declined");
		List<Long> fences = new ArrayList<>();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> call(operation, "k", () -> {
			fences.add(IdempotencyContext.current().fence());
			throw boom;
		})).isSameAs(boom);
		Object retried = call(operation, "k", () -> {
			fences.add(IdempotencyContext.current().fence());
			return 42L;
		});
		assertThat(retried).isEqualTo(42L);
		assertThat(fences).containsExactly(1L, 2L);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.FAILED, Outcome.EXECUTED);
	}

	@Test
	void checkedExceptionsPassThroughUnchanged() {
		Operation operation = operation(REJECT, String.class);
		Exception checked = new java.io.IOException("disk full");
		assertThatExceptionOfType(java.io.IOException.class).isThrownBy(() -> call(operation, "k", () -> {
			throw checked;
		})).isSameAs(checked);
	}

	@Test
	void nullBlankAndEmptyKeysFailBeforeTheMethodRuns() {
		Operation operation = operation(REJECT, String.class);
		AtomicInteger runs = new AtomicInteger();
		for (Object key : new Object[] { null, "", "   ", "\t\n" }) {
			assertThatExceptionOfType(IdempotencyKeyException.class)
				.isThrownBy(() -> call(operation, key, () -> "r" + runs.incrementAndGet()))
				.withMessageContaining(this.name)
				.withMessageContaining("the test's key");
		}
		assertThat(runs).hasValue(0);
	}

	@Test
	void recordKeyIsTheKeyAsStoredByACall() throws Throwable {
		Operation operation = operation(REJECT, String.class);
		String longKey = "x".repeat(201);
		call(operation, longKey, () -> "x");
		call(operation, "short", () -> "y");
		RecordKey hashed = this.engine.getRecords().recordKey(operation.name(), longKey);
		assertThat(hashed).isEqualTo(new RecordKey(operation.name(), "sha256:" + HashedKeys.sha256Hex(longKey)));
		assertThat(this.store.read(hashed)).isPresent();
		assertThat(this.engine.getRecords().recordKey(operation.name(), hashed.key())).isEqualTo(hashed);
		assertThat(this.store.read(this.engine.getRecords().recordKey(operation.name(), "short"))).isPresent();
		assertThat(this.engine.getRecords().recordKey(operation.name(), "y".repeat(200)).key())
			.isEqualTo("y".repeat(200));
	}

	@Test
	void literalKeyThatIsTheDigestOfALongKeyDoesNotMeetItsRecord() throws Throwable {
		Operation operation = operation(REJECT, String.class);
		String longKey = "x".repeat(201);
		assertThat(call(operation, longKey, () -> "long")).isEqualTo("long");
		String digest = HashedKeys.sha256Hex(longKey);
		assertThat(call(operation, digest, () -> "digest")).isEqualTo("digest");
		assertThat(call(operation, "sha256:" + digest, () -> "stored form")).isEqualTo("stored form");
		assertThat(call(operation, longKey, () -> "again")).isEqualTo("long");
		assertThat(call(operation, digest, () -> "again")).isEqualTo("digest");
		assertThat(call(operation, "sha256:" + digest, () -> "again")).isEqualTo("stored form");
	}

	@Test
	void literalKeyThatStartsLikeAHashedOneIsStoredHashed() throws Throwable {
		Operation operation = operation(REJECT, String.class);
		AtomicReference<String> seen = new AtomicReference<>();
		call(operation, "sha256:short", () -> {
			seen.set(IdempotencyContext.current().key());
			return "x";
		});
		assertThat(seen.get()).isEqualTo("sha256:" + HashedKeys.sha256Hex("sha256:short"));
		assertThat(this.engine.getRecords().recordKey(operation.name(), "sha256:short").key()).isEqualTo(seen.get());
		assertThat(this.engine.getRecords().recordKey(operation.name(), seen.get()).key()).isEqualTo(seen.get());
	}

	@Test
	void nonStringKeysUseToString() throws Throwable {
		Operation operation = operation(REJECT, String.class);
		AtomicReference<String> seen = new AtomicReference<>();
		call(operation, 12345L, () -> {
			seen.set(IdempotencyContext.current().key());
			return "x";
		});
		assertThat(seen).hasValue("12345");
		assertThat(call(operation, "12345", () -> "y")).isEqualTo("x");
	}

	@Test
	void keysLongerThanTheMaximumAreReplacedByTheirSha256() throws Throwable {
		Operation operation = operation(REJECT, String.class);
		String longKey = "x".repeat(201);
		AtomicReference<String> seen = new AtomicReference<>();
		call(operation, longKey, () -> {
			seen.set(IdempotencyContext.current().key());
			return "x";
		});
		assertThat(seen.get()).isEqualTo("sha256:" + HashedKeys.sha256Hex(longKey)).matches("sha256:[0-9a-f]{64}");
		assertThat(call(operation, longKey, () -> "again")).isEqualTo("x");
		String maxKey = "y".repeat(200);
		call(operation, maxKey, () -> {
			seen.set(IdempotencyContext.current().key());
			return "y";
		});
		assertThat(seen).hasValue(maxKey);
	}

	@Test
	void contextIsOnlyAvailableInsideTheMethod() throws Throwable {
		Operation operation = operation(REJECT, String.class);
		assertThat(IdempotencyContext.isActive()).isFalse();
		call(operation, "k", () -> {
			IdempotencyContext context = IdempotencyContext.current();
			assertThat(context.name()).isEqualTo(this.name);
			assertThat(context.key()).isEqualTo("k");
			assertThat(context.fence()).isEqualTo(1);
			assertThat(context.isLeaseHeld()).isTrue();
			return "x";
		});
		assertThat(IdempotencyContext.isActive()).isFalse();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(IdempotencyContext::current);
	}

	@Test
	void nestedCallsRestoreTheOuterContext() throws Throwable {
		Operation outer = operation(REJECT, String.class);
		Operation inner = new Operation(this.name + "-inner", REJECT, outer.codec(), "the test's key");
		call(outer, "outer", () -> {
			call(inner, "inner", () -> IdempotencyContext.current().key());
			return IdempotencyContext.current().key();
		});
		assertThat(call(outer, "outer", () -> "again")).isEqualTo("outer");
	}

	@Test
	void rejectFailsAtOnceWhileAnotherAttemptHoldsALiveLease() throws Throwable {
		Operation operation = operation(REJECT, String.class);
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<Object> first = executor.submit(() -> {
				try {
					return call(operation, "k", () -> {
						started.countDown();
						release.await(10, TimeUnit.SECONDS);
						return "first";
					});
				}
				catch (Throwable ex) {
					throw new IllegalStateException(ex);
				}
			});
			assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
			assertThatExceptionOfType(IdempotencyInProgressException.class)
				.isThrownBy(() -> call(operation, "k", () -> "second"))
				.satisfies((ex) -> {
					assertThat(ex.getRetryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
					assertThat(ex.getName()).isEqualTo(this.name);
					assertThat(ex.getKey()).isEqualTo("k");
				});
			release.countDown();
			assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
			assertThat(this.listener.count(Outcome.IN_PROGRESS)).isEqualTo(1);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void thirtyTwoSimultaneousCallersWithWaitRunOnceAndAllGetTheResult() throws Exception {
		Operation operation = operation(new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1),
				OnInProgress.WAIT, Duration.ofSeconds(20)), String.class);
		assertExactlyOnce(operation, 32, true);
	}

	@Test
	void thirtyTwoSimultaneousCallersWithRejectRunOnce() throws Exception {
		assertExactlyOnce(operation(REJECT, String.class), 32, false);
	}

	private void assertExactlyOnce(Operation operation, int threads, boolean everyoneGetsTheResult) throws Exception {
		AtomicInteger runs = new AtomicInteger();
		CountDownLatch ready = new CountDownLatch(threads);
		CountDownLatch go = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<Object>> results = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				results.add(executor.submit(() -> {
					ready.countDown();
					go.await();
					try {
						return call(operation, "same", () -> {
							int run = runs.incrementAndGet();
							Thread.onSpinWait();
							return "winner-" + run;
						});
					}
					catch (IdempotencyInProgressException ex) {
						return ex;
					}
					catch (Throwable ex) {
						throw new IllegalStateException(ex);
					}
				}));
			}
			assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
			go.countDown();
			int winners = 0;
			for (Future<Object> result : results) {
				Object value = result.get(30, TimeUnit.SECONDS);
				if (everyoneGetsTheResult) {
					assertThat(value).isEqualTo("winner-1");
				}
				else if ("winner-1".equals(value)) {
					winners++;
				}
				else if (!(value instanceof IdempotencyInProgressException)) {
					assertThat(value).as("a late caller replays").isEqualTo("winner-1");
				}
			}
			assertThat(runs).hasValue(1);
			assertThat(this.listener.count(Outcome.EXECUTED)).isEqualTo(1);
			if (!everyoneGetsTheResult) {
				assertThat(winners).isGreaterThanOrEqualTo(1);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void waitGivesUpWithInProgressWhenTheTimeoutRunsOut() throws Throwable {
		Operation operation = operation(new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1),
				OnInProgress.WAIT, Duration.ofMillis(200)), String.class);
		RecordKey record = new RecordKey(this.name, "k");
		assertThat(this.store.acquire(record,
				new AcquireRequest("other-owner", Duration.ofSeconds(30), Duration.ofHours(1), null)))
			.isInstanceOf(AcquireResult.Acquired.class);
		long start = System.nanoTime();
		assertThatExceptionOfType(IdempotencyInProgressException.class)
			.isThrownBy(() -> call(operation, "k", () -> "x"));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
	}

	@Test
	void waitTakesOverWhenTheOtherAttemptsLeaseExpires() throws Throwable {
		Operation operation = operation(new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1),
				OnInProgress.WAIT, Duration.ofSeconds(10)), String.class);
		RecordKey record = new RecordKey(this.name, "k");
		this.store.acquire(record,
				new AcquireRequest("crashed-owner", Duration.ofMillis(300), Duration.ofHours(1), null));
		AtomicReference<Long> fence = new AtomicReference<>();
		Object result = call(operation, "k", () -> {
			fence.set(IdempotencyContext.current().fence());
			return "recovered";
		});
		assertThat(result).isEqualTo("recovered");
		assertThat(fence).hasValue(2L);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.RECOVERED);
	}

	@Test
	void rejectTakesOverAnExpiredLeaseAtOnce() throws Throwable {
		Operation operation = operation(REJECT, String.class);
		RecordKey record = new RecordKey(this.name, "k");
		this.store.acquire(record,
				new AcquireRequest("crashed-owner", Duration.ofMillis(50), Duration.ofHours(1), null));
		Object result = InProgress.retryUntilDone(Duration.ofSeconds(5), () -> call(operation, "k", () -> "recovered"));
		assertThat(result).isEqualTo("recovered");
		assertThat(this.listener.outcomes()).endsWith(Outcome.RECOVERED);
	}

	@Test
	void leaseIsRenewedWhileASlowMethodRuns() throws Throwable {
		Operation operation = operation(new OperationSettings(Duration.ofMillis(300), Duration.ofHours(1),
				OnInProgress.REJECT, Duration.ofSeconds(1)), String.class);
		RecordKey record = new RecordKey(this.name, "k");
		Object result = call(operation, "k", () -> {
			IdempotencyContext attempt = IdempotencyContext.current();
			// Four leases long, each poll an intruder that must find the attempt alive
			await().during(Duration.ofMillis(1200))
				.atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> attempt.isLeaseHeld() && this.store.acquire(record, new AcquireRequest("intruder",
						Duration.ofSeconds(1), Duration.ofHours(1), null)) instanceof AcquireResult.InProgress);
			return "slow but alive";
		});
		assertThat(result).isEqualTo("slow but alive");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED);
	}

	@Test
	void anAttemptThatLostItsRecordCannotOverwriteItsSuccessor() throws Throwable {
		Operation operation = operation(new OperationSettings(Duration.ofMillis(150), Duration.ofHours(1),
				OnInProgress.REJECT, Duration.ofSeconds(1)), String.class);
		RecordKey record = new RecordKey(this.name, "k");
		assertThatExceptionOfType(IdempotencyLockLostException.class).isThrownBy(() -> call(operation, "k", () -> {
			this.store.evict(record);
			AcquireResult successor = this.store.acquire(record,
					new AcquireRequest("successor", Duration.ofSeconds(30), Duration.ofHours(1), null));
			assertThat(successor).isInstanceOf(AcquireResult.Acquired.class);
			long fence = ((AcquireResult.Acquired) successor).fence();
			assertThat(this.store.complete(record, "successor", fence,
					StoredResult.of(CODEC.forType(ResolvableType.forClass(String.class)).encode("successor's")),
					Duration.ofHours(1)))
				.isTrue();
			awaitLeaseLost();
			return "zombie's";
		})).withMessageContaining(this.name);
		assertThat(call(operation, "k", () -> "third")).isEqualTo("successor's");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.LOCK_LOST, Outcome.REPLAYED);
	}

	private static void awaitLeaseLost() {
		IdempotencyContext attempt = IdempotencyContext.current();
		await().atMost(Duration.ofSeconds(5)).until(() -> !attempt.isLeaseHeld());
	}

	@Test
	void payloadFingerprintMismatchIsKeyReuseAndRunsNothing() throws Throwable {
		Operation operation = operation(REJECT, String.class);
		AtomicInteger runs = new AtomicInteger();
		byte[] a = { 1, 2, 3 };
		byte[] b = { 1, 2, 4 };
		assertThat(this.engine.execute(operation, "k", () -> a, () -> "r" + runs.incrementAndGet())).isEqualTo("r1");
		assertThat(this.engine.execute(operation, "k", () -> a, () -> "r" + runs.incrementAndGet())).isEqualTo("r1");
		assertThatExceptionOfType(IdempotencyKeyReuseException.class)
			.isThrownBy(() -> this.engine.execute(operation, "k", () -> b, () -> "r" + runs.incrementAndGet()))
			.withMessageContaining("different payload");
		assertThat(runs).hasValue(1);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED, Outcome.KEY_REUSE);
	}

	@Test
	void unencodableResultStillCompletesAndDuplicatesGetReplayException() throws Throwable {
		Operation operation = operation(REJECT, Unencodable.class);
		AtomicInteger runs = new AtomicInteger();
		Object first = call(operation, "k", () -> {
			runs.incrementAndGet();
			return new Unencodable();
		});
		assertThat(first).isInstanceOf(Unencodable.class);
		assertThatExceptionOfType(IdempotencyReplayException.class)
			.isThrownBy(() -> call(operation, "k", () -> runs.incrementAndGet()))
			.withMessageContaining("could not be encoded");
		assertThat(runs).hasValue(1);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
	}

	@Test
	void oversizeResultStillCompletesAndDuplicatesGetReplayException() throws Throwable {
		this.engine.close();
		IdempotencyDefaults defaults = IdempotencyDefaults.STANDARD;
		this.engine = engine(new IdempotencyDefaults(defaults.settings(), defaults.onStoreFailure(),
				defaults.maxKeyLength(), 100, defaults.operations()));
		Operation operation = operation(REJECT, String.class);
		AtomicInteger runs = new AtomicInteger();
		String big = "b".repeat(500);
		assertThat(call(operation, "k", () -> {
			runs.incrementAndGet();
			return big;
		})).isEqualTo(big);
		assertThatExceptionOfType(IdempotencyReplayException.class)
			.isThrownBy(() -> call(operation, "k", () -> runs.incrementAndGet()))
			.withMessageContaining("exceeds idempotency.max-result-size of 100 bytes");
		assertThat(runs).hasValue(1);
	}

	@Test
	void storedResultThatNoLongerDecodesGivesReplayException() throws Throwable {
		call(operation(REJECT, String.class), "k", () -> "not a number");
		assertThatExceptionOfType(IdempotencyReplayException.class)
			.isThrownBy(() -> call(operation(REJECT, Integer.class), "k", () -> 1))
			.withMessageContaining("does not decode");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
	}

	@Test
	void aFailingListenerNeverBreaksACall() throws Throwable {
		this.engine.close();
		this.engine = new IdempotencyEngine(this.store, IdempotencyDefaults.STANDARD,
				List.of(new IdempotencyListener() {

					@Override
					public void onOutcome(String name, Outcome outcome) {
						throw new IllegalStateException("listener down");
					}

					@Override
					public void onStoreOperation(StoreOperation operation, String store, long nanos,
							boolean succeeded) {
						throw new IllegalStateException("listener down");
					}

				}, this.listener));
		assertThat(call(operation(REJECT, String.class), "k", () -> "fine")).isEqualTo("fine");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED);
	}

	@Test
	void everyStoreTransitionIsTimedForListeners() throws Throwable {
		Operation operation = operation(REJECT, String.class);
		call(operation, "k", () -> "x");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> call(operation, "other", () -> {
			throw new IllegalStateException("boom");
		}));
		assertThat(this.listener.storeOperations()).containsExactly(StoreOperation.ACQUIRE, StoreOperation.COMPLETE,
				StoreOperation.ACQUIRE, StoreOperation.RELEASE);
	}

	@Test
	void crashedAttemptIsTakenOverWithTheNextFenceEvenPastItsRetention() throws Throwable {
		RecordKey record = new RecordKey(this.name, "k");
		this.store.acquire(record, new AcquireRequest("crashed", Duration.ofSeconds(1), Duration.ofMillis(500), null));
		awaitStoreTime(Duration.ofMillis(1200));
		AtomicReference<Long> fence = new AtomicReference<>();
		assertThat(call(operation(REJECT, String.class), "k", () -> {
			fence.set(IdempotencyContext.current().fence());
			return "recovered";
		})).isEqualTo("recovered");
		assertThat(fence).hasValue(2L);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.RECOVERED);
	}

	@Test
	void longAttemptOutlivesItsRetentionAndKeepsItsRecord() throws Throwable {
		Operation operation = operation(new OperationSettings(Duration.ofMillis(300), Duration.ofMillis(100),
				OnInProgress.REJECT, Duration.ofSeconds(1)), String.class);
		RecordKey record = new RecordKey(this.name, "k");
		assertThat(call(operation, "k", () -> {
			awaitStoreTime(Duration.ofSeconds(1));
			assertThat(this.store.acquire(record,
					new AcquireRequest("intruder", Duration.ofSeconds(1), Duration.ofHours(1), null)))
				.isInstanceOf(AcquireResult.InProgress.class);
			return "long";
		})).isEqualTo("long");
		assertThat(call(operation, "k", () -> "again")).isEqualTo("long");
	}

	@Test
	void interruptedThreadStillCompletesAndKeepsItsInterrupt() throws Throwable {
		Operation operation = operation(REJECT, String.class);
		AtomicInteger runs = new AtomicInteger();
		try {
			assertThat(call(operation, "k", () -> {
				runs.incrementAndGet();
				Thread.currentThread().interrupt();
				return "done";
			})).isEqualTo("done");
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(call(operation, "k", () -> "again " + runs.incrementAndGet())).isEqualTo("done");
		assertThat(runs).hasValue(1);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
	}

	@Test
	void interruptedThreadStillReleasesAFailedAttempt() throws Throwable {
		Operation operation = operation(REJECT, String.class);
		try {
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> call(operation, "k", () -> {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("boom");
			})).satisfies((ex) -> assertThat(ex.getSuppressed()).isEmpty());
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(call(operation, "k", () -> "second")).isEqualTo("second");
	}

	@Test
	void errorWhileEncodingCompletesTheRecordThenPropagates() throws Throwable {
		Operation operation = operation(REJECT, Exploding.class);
		AtomicInteger runs = new AtomicInteger();
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> call(operation, "k", () -> {
			runs.incrementAndGet();
			return new Exploding();
		})).withMessage("getter exploded");
		assertThatExceptionOfType(IdempotencyReplayException.class)
			.isThrownBy(() -> call(operation, "k", () -> runs.incrementAndGet()))
			.withMessageContaining("could not be encoded")
			.withMessageContaining("getter exploded");
		assertThat(runs).hasValue(1);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
	}

	@Test
	void subclassResultCompletesUnreplayableInsteadOfLosingItsFields() throws Throwable {
		Operation operation = operation(REJECT, Receipt.class);
		AtomicInteger runs = new AtomicInteger();
		Receipt first = (Receipt) call(operation, "k", () -> {
			runs.incrementAndGet();
			return new RefundReceipt();
		});
		assertThat(first).isInstanceOf(RefundReceipt.class);
		assertThatExceptionOfType(IdempotencyReplayException.class)
			.isThrownBy(() -> call(operation, "k", () -> runs.incrementAndGet()))
			.withMessageContaining(RefundReceipt.class.getName())
			.withMessageContaining("a subclass of the declared " + Receipt.class.getName());
		assertThat(runs).hasValue(1);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
	}

	@Test
	void transientFailureAtCompletionIsRetried() throws Throwable {
		AtomicInteger failures = new AtomicInteger(3);
		useStore(new ForwardingStore(this.store) {

			@Override
			public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
				if (failures.getAndDecrement() > 0) {
					throw new IllegalStateException("connection reset");
				}
				return super.complete(key, owner, fence, result, retention);
			}

		});
		Operation operation = operation(REJECT, String.class);
		assertThat(call(operation, "k", () -> "done")).isEqualTo("done");
		assertThat(call(operation, "k", () -> "again")).isEqualTo("done");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
	}

	@Test
	void completionThatKeepsFailingTellsTheCallerTheMethodRan() throws Throwable {
		AtomicInteger tries = new AtomicInteger();
		useStore(new ForwardingStore(this.store) {

			@Override
			public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
				tries.incrementAndGet();
				throw new IllegalStateException("store gone");
			}

		});
		// Retried for the rest of the lease, which a loaded machine may spend, all of a
		// short one, before the first completion fails
		Operation operation = operation(new OperationSettings(Duration.ofSeconds(2), Duration.ofHours(1),
				OnInProgress.REJECT, Duration.ofSeconds(1)), String.class);
		assertThatExceptionOfType(IdempotencyCompletionException.class)
			.isThrownBy(() -> call(operation, "k", () -> "ran"))
			.isInstanceOf(IdempotencyStoreException.class)
			.withMessageContaining("ran its method")
			.withMessageContaining("the record stays IN_PROGRESS until its lease runs out")
			.withRootCauseInstanceOf(IllegalStateException.class);
		assertThat(tries.get()).isGreaterThan(1);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.STORE_ERROR);
	}

	@Test
	void acquireWhoseReplyWasLostIsAbandoned() throws Throwable {
		useStore(new ForwardingStore(this.store) {

			@Override
			public AcquireResult acquire(RecordKey key, AcquireRequest request) {
				super.acquire(key, request);
				throw new IllegalStateException("Command timed out");
			}

		});
		Operation operation = operation(REJECT, String.class);
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> call(operation, "k", () -> "never"));
		RecordKey record = new RecordKey(this.name, "k");
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.store.read(record).orElseThrow().state() == RecordState.FAILED);
		useStore(this.store);
		assertThat(call(operation, "k", () -> "ran")).isEqualTo("ran");
	}

	@Test
	void reSentAcquireFindsItsOwnAttempt() throws Throwable {
		useStore(new ForwardingStore(this.store) {

			@Override
			public AcquireResult acquire(RecordKey key, AcquireRequest request) {
				super.acquire(key, request);
				return super.acquire(key, request);
			}

		});
		AtomicReference<Long> fence = new AtomicReference<>();
		assertThat(call(operation(REJECT, String.class), "k", () -> {
			fence.set(IdempotencyContext.current().fence());
			return "once";
		})).isEqualTo("once");
		assertThat(fence).hasValue(1L);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED);
	}

	@Test
	void leaseIsNotHeldOnceAHangingStoreLetsItRunOut() throws Throwable {
		useStore(new ForwardingStore(this.store) {

			@Override
			public CompletionStage<Boolean> renewAsync(RecordKey key, String owner, long fence, Duration lease,
					Duration retention) {
				return new CompletableFuture<>();
			}

		});
		Operation operation = operation(new OperationSettings(Duration.ofMillis(300), Duration.ofHours(1),
				OnInProgress.REJECT, Duration.ofSeconds(1)), String.class);
		assertThat(call(operation, "k", () -> {
			IdempotencyContext attempt = IdempotencyContext.current();
			assertThat(attempt.isLeaseHeld()).isTrue();
			await().atMost(Duration.ofSeconds(2)).until(() -> !attempt.isLeaseHeld());
			return "done";
		})).isEqualTo("done");
	}

	@Test
	void fingerprinterFailureIsAPayloadExceptionAndCounted() {
		Operation operation = operation(REJECT, String.class);
		AtomicInteger runs = new AtomicInteger();
		assertThatExceptionOfType(IdempotencyPayloadException.class)
			.isThrownBy(() -> this.engine.execute(operation, "k", () -> {
				throw new IllegalStateException("cannot write payload");
			}, () -> runs.incrementAndGet()))
			.withMessageContaining(this.name)
			.withCauseInstanceOf(IllegalStateException.class);
		assertThat(runs).hasValue(0);
		assertThat(this.listener.outcomes()).containsExactly(Outcome.INVALID);
	}

	private void useStore(IdempotencyStore store) {
		this.engine.close();
		this.engine = new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of(this.listener));
	}

	/**
	 * Wait until at least {@code duration} has passed on the store's clock: a probe
	 * record acquired now with that lease is polled until it can be taken over.
	 */
	protected void awaitStoreTime(Duration duration) {
		RecordKey probe = new RecordKey(this.name, "probe-" + UUID.randomUUID());
		this.store.acquire(probe, new AcquireRequest("probe", duration, Duration.ofHours(1), null));
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.store.acquire(probe, new AcquireRequest("prober", Duration.ofSeconds(1),
					Duration.ofHours(1), null)) instanceof AcquireResult.Acquired);
	}

	@Test
	void settingsRejectNonsense() {
		assertThatIllegalArgumentException().isThrownBy(() -> new OperationSettings(Duration.ZERO, Duration.ofHours(1),
				OnInProgress.REJECT, Duration.ofSeconds(1)));
		assertThatIllegalArgumentException().isThrownBy(() -> new OperationSettings(Duration.ofSeconds(1),
				Duration.ofHours(1), OnInProgress.DEFAULT, Duration.ofSeconds(1)));
	}

	public static class Receipt {

		public String getId() {
			return "r-1";
		}

	}

	public static class RefundReceipt extends Receipt {

		public String getRefundedTo() {
			return "card";
		}

	}

	static final class Exploding {

		public String getValue() {
			throw new AssertionError("getter exploded");
		}

	}

	static final class Unencodable {

		public String getValue() {
			throw new IllegalStateException("cannot be read");
		}

	}

}
