package dev.idempotency.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.metrics.IdempotencyMetricsAutoConfiguration;
import dev.idempotency.engine.IdempotencyListener;
import dev.idempotency.engine.Outcome;
import dev.idempotency.engine.StoreOperation;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link IdempotencyMetrics}: exact counts of every outcome of calls through
 * the auto-configured advisor, on a real Redis.
 */
class IdempotencyMetricsTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class,
				IdempotencyMetricsAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withPropertyValues("idempotency.store=redis")
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withBean(Ledger.class);

	private final ApplicationContextRunner redisRunner = this.contextRunner.withBean(RedisConnectionFactory.class,
			() -> TestRedis.get().newConnectionFactory());

	private final String key = UUID.randomUUID().toString();

	@Test
	void countsExecutedAndReplayed() {
		this.redisRunner.run((context) -> {
			Ledger ledger = context.getBean(Ledger.class);
			assertThat(ledger.run(this.key, () -> "first")).isEqualTo("first");
			assertThat(ledger.run(this.key, () -> "second")).isEqualTo("first");
			assertCounts(context, "Ledger.run", Map.of(Outcome.EXECUTED, 1, Outcome.REPLAYED, 1));
		});
	}

	@Test
	void countsFailedThenExecuted() {
		this.redisRunner.run((context) -> {
			Ledger ledger = context.getBean(Ledger.class);
			IllegalStateException boom = new IllegalStateException("declined");
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> ledger.run(this.key, () -> {
				throw boom;
			})).isSameAs(boom);
			ledger.run(this.key, () -> "retried");
			assertCounts(context, "Ledger.run", Map.of(Outcome.FAILED, 1, Outcome.EXECUTED, 1));
		});
	}

	@Test
	void countsKeyReuse() {
		this.redisRunner.run((context) -> {
			Ledger ledger = context.getBean(Ledger.class);
			ledger.post(this.key, 10);
			assertThatExceptionOfType(IdempotencyKeyReuseException.class).isThrownBy(() -> ledger.post(this.key, 20));
			assertCounts(context, "Ledger.post", Map.of(Outcome.EXECUTED, 1, Outcome.KEY_REUSE, 1));
		});
	}

	@Test
	void countsInProgressWhileAnotherCallRuns() {
		this.redisRunner.run((context) -> {
			Ledger ledger = context.getBean(Ledger.class);
			CountDownLatch started = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				Future<String> first = executor.submit(() -> ledger.run(this.key, () -> {
					started.countDown();
					await(release);
					return "first";
				}));
				await(started);
				assertThatExceptionOfType(IdempotencyInProgressException.class)
					.isThrownBy(() -> ledger.run(this.key, () -> "second"));
				release.countDown();
				assertThat(first.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("first");
			}
			finally {
				release.countDown();
				executor.shutdownNow();
			}
			assertCounts(context, "Ledger.run", Map.of(Outcome.EXECUTED, 1, Outcome.IN_PROGRESS, 1));
		});
	}

	@Test
	void countsRecoveredAfterTakingOverAnExpiredLease() {
		this.redisRunner.run((context) -> {
			IdempotencyStore store = context.getBean(IdempotencyStore.class);
			AcquireResult crashed = store.acquire(new RecordKey("Ledger.run", this.key),
					new AcquireRequest("crashed-owner", Duration.ofMillis(100), Duration.ofHours(1), null));
			assertThat(crashed).isInstanceOf(AcquireResult.Acquired.class);
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> store.read(new RecordKey("Ledger.run", this.key))
					.orElseThrow()
					.leaseExpiresAt()
					.isBefore(Instant.now().minusMillis(50)));
			assertThat(context.getBean(Ledger.class).run(this.key, () -> "recovered")).isEqualTo("recovered");
			assertCounts(context, "Ledger.run", Map.of(Outcome.RECOVERED, 1));
		});
	}

	@Test
	void countsLockLostWhenASuccessorOwnsTheRecordAtCompletion() {
		this.redisRunner.run((context) -> {
			IdempotencyStore store = context.getBean(IdempotencyStore.class);
			RecordKey record = new RecordKey("Ledger.run", this.key);
			assertThatExceptionOfType(IdempotencyLockLostException.class)
				.isThrownBy(() -> context.getBean(Ledger.class).run(this.key, () -> {
					store.evict(record);
					assertThat(store.acquire(record,
							new AcquireRequest("successor", Duration.ofSeconds(30), Duration.ofHours(1), null)))
						.isInstanceOf(AcquireResult.Acquired.class);
					return "zombie's";
				}));
			assertCounts(context, "Ledger.run", Map.of(Outcome.LOCK_LOST, 1));
		});
	}

	@Test
	void countsStoreErrorAndBypassedWhileRedisIsDown() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			ApplicationContextRunner downRunner = this.contextRunner.withBean(RedisConnectionFactory.class,
					() -> TestRedis.connectionFactory(server.host(), server.port()));
			server.stop();
			downRunner.run((context) -> {
				assertThatExceptionOfType(IdempotencyStoreException.class)
					.isThrownBy(() -> context.getBean(Ledger.class).run(this.key, () -> "unprotected"));
				assertCounts(context, "Ledger.run", Map.of(Outcome.STORE_ERROR, 1));
				assertThat(timerCount(context, StoreOperation.ACQUIRE, IdempotencyMetricNames.ERROR)).isOne();
				assertThat(timerCount(context, StoreOperation.ACQUIRE, IdempotencyMetricNames.SUCCESS)).isZero();
			});
			downRunner.withPropertyValues("idempotency.on-store-failure=proceed").run((context) -> {
				assertThat(context.getBean(Ledger.class).run(this.key, () -> "unprotected")).isEqualTo("unprotected");
				assertCounts(context, "Ledger.run", Map.of(Outcome.BYPASSED, 1));
			});
		}
	}

	@Test
	void timesEveryStoreOperationOfTheRedisStore() {
		this.redisRunner.run((context) -> {
			Ledger ledger = context.getBean(Ledger.class);
			ledger.run(this.key, () -> "first");
			ledger.run(this.key, () -> "second");
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> ledger.run(this.key + "-2", () -> {
				throw new IllegalStateException("declined");
			}));
			assertThat(timerCount(context, StoreOperation.ACQUIRE, IdempotencyMetricNames.SUCCESS)).isEqualTo(3);
			assertThat(timerCount(context, StoreOperation.COMPLETE, IdempotencyMetricNames.SUCCESS)).isOne();
			assertThat(timerCount(context, StoreOperation.RELEASE, IdempotencyMetricNames.SUCCESS)).isOne();
			assertThat(timerCount(context, StoreOperation.RENEW, IdempotencyMetricNames.SUCCESS)).isZero();
			for (StoreOperation operation : StoreOperation.values()) {
				assertThat(timerCount(context, operation, IdempotencyMetricNames.ERROR)).isZero();
			}
		});
	}

	@Test
	void timesLeaseRenewals() {
		this.redisRunner.run((context) -> {
			context.getBean(Ledger.class).slow(this.key, () -> {
				Awaitility.await()
					.atMost(Duration.ofSeconds(10))
					.until(() -> timerCount(context, StoreOperation.RENEW, IdempotencyMetricNames.SUCCESS) > 0);
				return null;
			});
			assertThat(timerCount(context, StoreOperation.RENEW, IdempotencyMetricNames.SUCCESS)).isPositive();
			assertCounts(context, "Ledger.slow", Map.of(Outcome.EXECUTED, 1));
		});
	}

	@Test
	void neverTagsAMeterWithTheKey() {
		this.redisRunner.run((context) -> {
			Ledger ledger = context.getBean(Ledger.class);
			ledger.run(this.key, () -> "first");
			ledger.run(this.key, () -> "second");
			ledger.post(this.key, 1);
			for (Meter meter : context.getBean(MeterRegistry.class).getMeters()) {
				assertThat(meter.getId().getTags()).extracting(Tag::getValue).doesNotContain(this.key);
			}
		});
	}

	@Test
	void aFailingListenerBreaksNeitherTheCallNorTheMetrics() {
		this.redisRunner.withBean("failingListener", IdempotencyListener.class, FailingListener::new).run((context) -> {
			assertThat(context.getBean(Ledger.class).run(this.key, () -> "fine")).isEqualTo("fine");
			assertCounts(context, "Ledger.run", Map.of(Outcome.EXECUTED, 1));
			assertThat(timerCount(context, StoreOperation.ACQUIRE, IdempotencyMetricNames.SUCCESS)).isOne();
		});
	}

	private static void assertCounts(AssertableApplicationContext context, String name,
			Map<Outcome, Integer> expected) {
		MeterRegistry registry = context.getBean(MeterRegistry.class);
		Map<Outcome, Double> actual = new EnumMap<>(Outcome.class);
		Map<Outcome, Double> wanted = new EnumMap<>(Outcome.class);
		for (Outcome outcome : Outcome.values()) {
			actual.put(outcome,
					registry.get(IdempotencyMetricNames.INVOCATIONS)
						.tag(IdempotencyMetricNames.NAME, name)
						.tag(IdempotencyMetricNames.OUTCOME, outcome.tag())
						.counter()
						.count());
			wanted.put(outcome, expected.getOrDefault(outcome, 0).doubleValue());
		}
		assertThat(actual).isEqualTo(wanted);
	}

	private static long timerCount(AssertableApplicationContext context, StoreOperation operation, String result) {
		return context.getBean(MeterRegistry.class)
			.get(IdempotencyMetricNames.STORE_OPERATIONS)
			.tag(IdempotencyMetricNames.OPERATION, operation.tag())
			.tag(IdempotencyMetricNames.STORE, "redis")
			.tag(IdempotencyMetricNames.RESULT, result)
			.timer()
			.count();
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	static class Ledger {

		@Idempotent(key = "#id")
		public String run(String id, Supplier<String> body) {
			return body.get();
		}

		@Idempotent(key = "#id", payload = "#amount")
		public void post(String id, int amount) {
		}

		@Idempotent(key = "#id", lockTimeout = "300ms")
		public void slow(String id, Interruptible body) throws InterruptedException {
			body.run();
		}

	}

	@FunctionalInterface
	interface Interruptible {

		Object run() throws InterruptedException;

	}

	static class FailingListener implements IdempotencyListener {

		@Override
		public void onOutcome(String name, Outcome outcome) {
			throw new IllegalStateException("listener down");
		}

		@Override
		public void onStoreOperation(StoreOperation operation, String store, long nanos, boolean succeeded) {
			throw new IllegalStateException("listener down");
		}

	}

}
