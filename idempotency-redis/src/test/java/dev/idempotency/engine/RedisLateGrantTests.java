package dev.idempotency.engine;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.BatchOutcome;
import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An acquire whose reply comes late (a replica acknowledgement, a large batch, a slow
 * link) has used up part of its lease before the method could start: the lease is counted
 * from when the acquire was sent, and a method with less than a third of its lease left
 * does not start unless a renewal confirms a new lease in time. Otherwise a duplicate,
 * waiting for the record, takes it over when the lease runs out while the method runs,
 * and the effect happens twice.
 * <p>
 * The store's reply is held back after Redis has granted the lease: the hold is the
 * slowness under test, not a synchronisation.
 */
class RedisLateGrantTests {

	private static final Duration LEASE = Duration.ofMillis(1000);

	// Leaves 150 ms of the lease, less than the third the method needs
	private static final long HELD_MILLIS = 850;

	private final LateReplies store = new LateReplies(
			new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency-late-grant:"));

	private final RecordingListener listener = new RecordingListener();

	private final IdempotencyEngine engine = new IdempotencyEngine(this.store, IdempotencyDefaults.STANDARD,
			List.of(this.listener));

	private final AtomicInteger effects = new AtomicInteger();

	// Counted down once the duplicate's work ran: the first attempt's work, if it runs,
	// waits for it, so that both runs overlap as they do in production
	private final CountDownLatch duplicateRan = new CountDownLatch(1);

	@AfterEach
	void close() {
		this.engine.close();
	}

	@Test
	void callWhoseAcquireAnsweredLateDoesNotRunAndTheDuplicateRunsOnce() throws Throwable {
		Operation operation = operation();
		String key = "single-" + UUID.randomUUID();
		this.store.slowLink();
		Future<@Nullable Object> first = CompletableFuture.supplyAsync(() -> {
			try {
				return this.engine.execute(operation, key, null, this::firstWork);
			}
			catch (Throwable ex) {
				throw new CompletableFutureFailure(ex);
			}
		});
		Object duplicate = duplicate(operation, key);
		assertThat(failureOf(first)).isInstanceOf(IdempotencyLockLostException.class)
			.hasMessageContaining("did not run")
			.hasMessageContaining("its record was released");
		assertThat(duplicate).isEqualTo("duplicate");
		assertThat(this.effects).hasValue(1);
		assertThat(this.store.read(new RecordKey(operation.name(), key)))
			.hasValueSatisfying((record) -> assertThat(record.state()).isEqualTo(RecordState.COMPLETED));
		// The duplicate runs once the lease lapses in Redis (recovered), or once the
		// refused attempt released its record (executed), whichever comes first
		assertThat(this.listener.outcomes()).hasSize(2)
			.containsOnlyOnce(Outcome.LOCK_LOST)
			.containsAnyOf(Outcome.RECOVERED, Outcome.EXECUTED);
	}

	@Test
	void asyncCallWhoseAcquireAnsweredLateDoesNotRunAndTheDuplicateRunsOnce() throws Throwable {
		Operation operation = operation();
		String key = "async-" + UUID.randomUUID();
		this.store.slowLink();
		CompletableFuture<CompletableFuture<@Nullable Object>> first = CompletableFuture.supplyAsync(() -> this.engine
			.executeAsync(operation, key, null, () -> CompletableFuture.supplyAsync(() -> (Object) firstWork())));
		Object duplicate = duplicate(operation, key);
		assertThat(failureOf(first.get(10, TimeUnit.SECONDS))).isInstanceOf(IdempotencyLockLostException.class)
			.hasMessageContaining("did not run");
		assertThat(duplicate).isEqualTo("duplicate");
		assertThat(this.effects).hasValue(1);
	}

	@Test
	void batchWhoseAcquireAnsweredLateRunsNoItemAndEachDuplicateRunsOnce() throws Throwable {
		Operation operation = operation();
		String key = "batch-" + UUID.randomUUID();
		this.store.slowLink();
		CompletableFuture<List<BatchOutcome<String, @Nullable Object>>> first = CompletableFuture
			.supplyAsync(() -> this.engine.executeAll(operation, List.of(key), Function.identity(), null,
					(item) -> firstWork()));
		Object duplicate = duplicate(operation, key);
		List<BatchOutcome<String, @Nullable Object>> outcomes = first.get(10, TimeUnit.SECONDS);
		assertThat(outcomes).singleElement()
			.isInstanceOfSatisfying(BatchOutcome.Failed.class,
					(failed) -> assertThat(failed.exception()).isInstanceOf(IdempotencyLockLostException.class)
						.hasMessageContaining("did not run"));
		assertThat(duplicate).isEqualTo("duplicate");
		assertThat(this.effects).hasValue(1);
	}

	// The acquire reached Redis late (the first command of a connection being made, a
	// command re-sent after a reconnect): the lease counted from its send is nearly gone,
	// Redis's is whole. A renewal confirms a lease the method can run on.
	@Test
	void callWhoseAcquireReachedRedisLateRunsOnceARenewalConfirmsItsLease() throws Throwable {
		Operation operation = operation();
		String key = "reached-late-" + UUID.randomUUID();
		this.store.delayNextAcquire(HELD_MILLIS);
		Future<@Nullable Object> first = CompletableFuture.supplyAsync(() -> {
			try {
				return this.engine.execute(operation, key, null, this::firstWork);
			}
			catch (Throwable ex) {
				throw new CompletableFutureFailure(ex);
			}
		});
		Object duplicate = duplicate(operation, key);
		assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
		assertThat(duplicate).isEqualTo("first");
		assertThat(this.effects).hasValue(1);
	}

	@Test
	void acquireAnsweredWithinTwoThirdsOfTheLeaseRunsAndKeepsItsRecord() throws Throwable {
		Operation operation = operation();
		String key = "in-time-" + UUID.randomUUID();
		this.store.holdNextAcquire(500);
		assertThat(this.engine.execute(operation, key, null, () -> "r" + this.effects.incrementAndGet()))
			.isEqualTo("r1");
		assertThat(this.engine.execute(operation, key, null, () -> "r" + this.effects.incrementAndGet()))
			.isEqualTo("r1");
	}

	private String firstWork() {
		this.effects.incrementAndGet();
		try {
			this.duplicateRan.await(3, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return "first";
	}

	// Waits for the record (as a redelivery with WAIT would), starting once Redis has
	// granted the first attempt's lease
	private @Nullable Object duplicate(Operation operation, String key) throws Throwable {
		assertThat(this.store.granted.await(10, TimeUnit.SECONDS)).isTrue();
		Operation waiting = new Operation(operation.name(),
				new OperationSettings(LEASE, Duration.ofHours(1), OnInProgress.WAIT, Duration.ofSeconds(5)),
				operation.codec(), operation.keySource());
		return this.engine.execute(waiting, key, null, () -> {
			this.effects.incrementAndGet();
			this.duplicateRan.countDown();
			return "duplicate";
		});
	}

	private static Throwable failureOf(Future<?> future) throws Exception {
		try {
			future.get(10, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			return (cause instanceof CompletableFutureFailure wrapped) ? wrapped.getCause() : cause;
		}
		throw new AssertionError("Expected the call to fail");
	}

	private static Operation operation() {
		return new Operation("late-grant-" + UUID.randomUUID(),
				new OperationSettings(LEASE, Duration.ofHours(1), OnInProgress.REJECT, Duration.ofSeconds(1)),
				new JacksonResultCodec(JsonMapper.builder().build()).forType(ResolvableType.forClass(String.class)),
				"the test's key");
	}

	/**
	 * Holds back the reply of the next acquire once Redis has run it, or the acquire
	 * itself before Redis runs it; a batch is acquired item by item through it. On a slow
	 * link, renewals reach Redis as late as that reply comes.
	 */
	private static final class LateReplies extends ForwardingStore {

		private final CountDownLatch granted = new CountDownLatch(1);

		private volatile long holdMillis;

		private volatile long delayMillis;

		private volatile long renewalDelayMillis;

		LateReplies(IdempotencyStore delegate) {
			super(delegate);
		}

		void slowLink() {
			holdNextAcquire(HELD_MILLIS);
			this.renewalDelayMillis = HELD_MILLIS;
		}

		void holdNextAcquire(long millis) {
			this.holdMillis = millis;
		}

		void delayNextAcquire(long millis) {
			this.delayMillis = millis;
		}

		@Override
		public AcquireResult acquire(RecordKey key, AcquireRequest request) {
			long delay = this.delayMillis;
			this.delayMillis = 0;
			if (delay > 0) {
				pause(delay);
			}
			AcquireResult result = super.acquire(key, request);
			if (delay > 0) {
				this.granted.countDown();
			}
			hold();
			return result;
		}

		@Override
		public CompletionStage<Boolean> renewAsync(RecordKey key, String owner, long fence, Duration lease,
				Duration retention) {
			long delay = this.renewalDelayMillis;
			if (delay == 0) {
				return super.renewAsync(key, owner, fence, lease, retention);
			}
			return CompletableFuture.runAsync(() -> {
			}, CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS))
				.thenCompose((sent) -> super.renewAsync(key, owner, fence, lease, retention));
		}

		private void hold() {
			long millis = this.holdMillis;
			this.holdMillis = 0;
			if (millis > 0) {
				this.granted.countDown();
				pause(millis);
			}
		}

		private static void pause(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	private static final class CompletableFutureFailure extends RuntimeException {

		CompletableFutureFailure(Throwable cause) {
			super(cause);
		}

	}

}
