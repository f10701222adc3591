package dev.idempotency.engine;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class RedisIdempotencyEngineTests extends IdempotencyEngineTests {

	// A short lease: completion is retried while the lease lasts
	private static final OperationSettings SETTINGS = new OperationSettings(Duration.ofSeconds(1), Duration.ofHours(1),
			OnInProgress.REJECT, Duration.ofSeconds(1));

	@Override
	protected IdempotencyStore createStore() {
		return new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency:");
	}

	private static Operation operation() {
		return new Operation("outage-" + UUID.randomUUID(), SETTINGS,
				new JacksonResultCodec(JsonMapper.builder().build()).forType(ResolvableType.forClass(String.class)),
				"the test's key");
	}

	// Completion is retried for as long as a lease, whatever the machine's load
	private static Operation longLeaseOperation() {
		return new Operation("timed-out-" + UUID.randomUUID(),
				new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1), OnInProgress.REJECT,
						Duration.ofSeconds(1)),
				new JacksonResultCodec(JsonMapper.builder().build()).forType(ResolvableType.forClass(String.class)),
				"the test's key");
	}

	private static IdempotencyDefaults onStoreFailure(StoreFailurePolicy policy) {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		return new IdempotencyDefaults(standard.settings(), policy, standard.maxKeyLength(), standard.maxResultSize(),
				standard.operations());
	}

	@Test
	void unreachableStoreFailsTheCallBeforeTheMethodRuns() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			RecordingListener listener = new RecordingListener();
			try (IdempotencyEngine engine = new IdempotencyEngine(new RedisIdempotencyStore(factory, "idempotency:"),
					onStoreFailure(StoreFailurePolicy.FAIL), List.of(listener))) {
				server.stop();
				AtomicInteger runs = new AtomicInteger();
				assertThatExceptionOfType(IdempotencyStoreException.class)
					.isThrownBy(() -> engine.execute(operation(), "k", null, () -> "r" + runs.incrementAndGet()))
					.withMessageContaining("acquire")
					.withCauseInstanceOf(RuntimeException.class);
				assertThat(runs).hasValue(0);
				assertThat(listener.outcomes()).containsExactly(Outcome.STORE_ERROR);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void unreachableStoreWithProceedRunsTheMethodUnprotected() throws Throwable {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			RecordingListener listener = new RecordingListener();
			try (IdempotencyEngine engine = new IdempotencyEngine(new RedisIdempotencyStore(factory, "idempotency:"),
					onStoreFailure(StoreFailurePolicy.PROCEED), List.of(listener))) {
				server.stop();
				AtomicInteger runs = new AtomicInteger();
				Operation operation = operation();
				assertThat(engine.execute(operation, "k", null, () -> "r" + runs.incrementAndGet())).isEqualTo("r1");
				assertThat(engine.execute(operation, "k", null, () -> "r" + runs.incrementAndGet())).isEqualTo("r2");
				assertThat(listener.outcomes()).containsExactly(Outcome.BYPASSED, Outcome.BYPASSED);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void storeGoingAwayWhileTheMethodRunsFailsTheCallWithStoreException() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			RecordingListener listener = new RecordingListener();
			try (IdempotencyEngine engine = new IdempotencyEngine(new RedisIdempotencyStore(factory, "idempotency:"),
					onStoreFailure(StoreFailurePolicy.PROCEED), List.of(listener))) {
				assertThatExceptionOfType(IdempotencyCompletionException.class)
					.isThrownBy(() -> engine.execute(operation(), "k", null, () -> {
						server.stop();
						return "effect done";
					}))
					.withMessageContaining("ran its method");
				assertThat(listener.outcomes()).containsExactly(Outcome.STORE_ERROR);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void storeGoingAwayWhenTheMethodThrowsKeepsTheMethodsException() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			try (IdempotencyEngine engine = new IdempotencyEngine(new RedisIdempotencyStore(factory, "idempotency:"),
					IdempotencyDefaults.STANDARD, List.of())) {
				IllegalArgumentException boom = new IllegalArgumentException("boom");
				assertThatExceptionOfType(IllegalArgumentException.class)
					.isThrownBy(() -> engine.execute(operation(), "k", null, () -> {
						server.stop();
						throw boom;
					}))
					.isSameAs(boom)
					.satisfies((ex) -> assertThat(ex.getSuppressed()).singleElement()
						.isInstanceOf(IdempotencyStoreException.class));
			}
			finally {
				factory.destroy();
			}
		}
	}

	// The store's command timeout gives up on a reply that the server, frozen, sends
	// later: the completion ran, and its re-sent twin must be answered as a success.
	@Test
	void completionThatTimedOutButRanOnTheServerIsRetriedAndRecordedOnce() throws Throwable {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			AtomicInteger timedOut = new AtomicInteger();
			IdempotencyStore store = new ForwardingStore(
					new RedisIdempotencyStore(factory, "idempotency:", Duration.ofMillis(300))) {

				@Override
				public boolean complete(RecordKey key, String owner, long fence, StoredResult result,
						Duration retention) {
					try {
						return super.complete(key, owner, fence, result, retention);
					}
					catch (RuntimeException ex) {
						timedOut.incrementAndGet();
						server.thaw();
						throw ex;
					}
				}

			};
			RecordingListener listener = new RecordingListener();
			try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyDefaults.STANDARD,
					List.of(listener))) {
				Operation operation = longLeaseOperation();
				AtomicInteger runs = new AtomicInteger();
				assertThat(engine.execute(operation, "k", null, () -> {
					server.freeze();
					return "r" + runs.incrementAndGet();
				})).isEqualTo("r1");
				assertThat(timedOut).hasPositiveValue();
				assertThat(engine.execute(operation, "k", null, () -> "r" + runs.incrementAndGet())).isEqualTo("r1");
				assertThat(runs).hasValue(1);
				assertThat(listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
			}
			finally {
				server.thaw();
				factory.destroy();
			}
		}
	}

	// An acquire that timed out may have taken the record: it is abandoned, so the next
	// delivery need not wait for the lease (30 seconds) to run out.
	@Test
	void acquireThatTimedOutButRanOnTheServerIsAbandonedForTheNextDelivery() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			AtomicBoolean freezeNext = new AtomicBoolean(true);
			IdempotencyStore store = new ForwardingStore(
					new RedisIdempotencyStore(factory, "idempotency:", Duration.ofMillis(300))) {

				@Override
				public AcquireResult acquire(RecordKey key, AcquireRequest request) {
					if (!freezeNext.getAndSet(false)) {
						return super.acquire(key, request);
					}
					server.freeze();
					try {
						return super.acquire(key, request);
					}
					finally {
						server.thaw();
					}
				}

			};
			Operation operation = longLeaseOperation();
			try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of())) {
				assertThatExceptionOfType(IdempotencyStoreException.class)
					.isThrownBy(() -> engine.execute(operation, "k", null, () -> "never"));
				await().atMost(Duration.ofSeconds(10))
					.ignoreExceptionsInstanceOf(IdempotencyInProgressException.class)
					.untilAsserted(
							() -> assertThat(engine.execute(operation, "k", null, () -> "next")).isEqualTo("next"));
			}
			finally {
				server.thaw();
				factory.destroy();
			}
		}
	}

	@Test
	void tenThousandRunningAttemptsKeepTheirLeases() {
		IdempotencyStore store = createStore();
		Duration lease = Duration.ofSeconds(2);
		Duration retention = Duration.ofMinutes(5);
		String name = "crowd-" + UUID.randomUUID();
		try (LeaseRenewer renewer = new LeaseRenewer(store);
				LeaseCrowd crowd = LeaseCrowd.start(store, renewer, name, 10_000, lease, retention)) {
			// Two whole leases on the store's clock: every lease would have run out
			// without renewals
			awaitStoreTime(lease.multipliedBy(2));
			crowd.assertEveryLeaseHeld(store);
		}
	}

}
