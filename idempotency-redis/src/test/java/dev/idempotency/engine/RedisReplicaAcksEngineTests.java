package dev.idempotency.engine;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import dev.idempotency.BatchOutcome;
import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.RenewalResult;
import dev.idempotency.store.StoredResult;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.store.redis.ReplicaAcks;
import dev.idempotency.test.redis.RedisReplicaSet;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The engine on a store that waits for one replica, whose replica stops answering: the
 * caller gets a store exception, and the method runs at most once.
 */
class RedisReplicaAcksEngineTests {

	private static final String PREFIX = "idempotency-engine-acks:";

	private static final ReplicaAcks ONE_REPLICA = new ReplicaAcks(1, Duration.ofMillis(300));

	private static final Duration DEADLINE = Duration.ofSeconds(20);

	private static RedisReplicaSet servers;

	private static RedisServer replica;

	private static LettuceConnectionFactory factory;

	private static LettuceConnectionFactory replicaFactory;

	@BeforeAll
	static void startServers() {
		servers = TestRedis.startReplicaSet(1);
		replica = servers.replicas().get(0);
		factory = TestRedis.connectionFactory(servers.primary().host(), servers.primary().port());
		replicaFactory = TestRedis.connectionFactory(replica.host(), replica.port());
		// After a full synchronisation Redis streams nothing to a replica, WAIT's request
		// for an acknowledgement included, until the replica's first periodic one
		new RedisIdempotencyStore(factory, PREFIX, RedisIdempotencyStore.DEFAULT_COMMAND_TIMEOUT,
				new ReplicaAcks(1, Duration.ofSeconds(10)))
			.acquire(new RecordKey("warm-up", "k"),
					new AcquireRequest("warm-up", Duration.ofSeconds(30), Duration.ofMinutes(1), null));
	}

	@AfterAll
	static void stopServers() {
		factory.destroy();
		replicaFactory.destroy();
		servers.close();
	}

	@AfterEach
	void thawReplica() {
		replica.thaw();
		servers.awaitReplicasInSync();
	}

	@Test
	void frozenReplicaFailsTheCallBeforeTheMethodRuns() throws Throwable {
		RecordingListener listener = new RecordingListener();
		try (IdempotencyEngine engine = new IdempotencyEngine(store(), IdempotencyDefaults.STANDARD,
				List.of(listener))) {
			Operation operation = operation(Duration.ofSeconds(30));
			AtomicInteger runs = new AtomicInteger();
			replica.freeze();
			assertThatExceptionOfType(IdempotencyStoreException.class)
				.isThrownBy(() -> engine.execute(operation, "k", null, () -> "r" + runs.incrementAndGet()))
				.withMessageContaining("Only 0 of 1 Redis replicas acknowledged the claim");
			assertThat(runs).hasValue(0);
			replica.thaw();
			assertThat(engine.execute(operation, "k", null, () -> "r" + runs.incrementAndGet())).isEqualTo("r1");
			assertThat(engine.execute(operation, "k", null, () -> "r" + runs.incrementAndGet())).isEqualTo("r1");
			assertThat(runs).hasValue(1);
			assertThat(listener.outcomes()).containsExactly(Outcome.STORE_ERROR, Outcome.EXECUTED, Outcome.REPLAYED);
		}
	}

	// The claim waits 950 ms of its 1 s lease for the frozen replica: counted from its
	// send, the lease would leave the method 50 ms, and a duplicate waiting for the
	// record
	// could take it over while the method runs. A renewal, which waits for no replica,
	// confirms a new lease first: the method runs on it, renewed for as long as it runs,
	// and the duplicate replays its result.
	@Test
	void claimThatWaitedMostOfItsLeaseForTheReplicaRunsOnALeaseRenewedFirst() throws Throwable {
		RecordingListener listener = new RecordingListener();
		IdempotencyStore patient = new RedisIdempotencyStore(factory, PREFIX,
				RedisIdempotencyStore.DEFAULT_COMMAND_TIMEOUT, new ReplicaAcks(1, Duration.ofSeconds(3)));
		ScheduledExecutorService thawer = Executors.newSingleThreadScheduledExecutor();
		try (IdempotencyEngine engine = new IdempotencyEngine(patient, IdempotencyDefaults.STANDARD,
				List.of(listener))) {
			Operation operation = operation(Duration.ofSeconds(1));
			AtomicInteger effects = new AtomicInteger();
			CountDownLatch duplicateRan = new CountDownLatch(1);
			replica.freeze();
			thawer.schedule(replica::thaw, 950, TimeUnit.MILLISECONDS);
			CompletableFuture<Object> first = CompletableFuture.supplyAsync(() -> {
				try {
					return engine.execute(operation, "k", null, () -> {
						effects.incrementAndGet();
						// Outlasts the lease: the duplicate would take over a lease not
						// renewed
						duplicateRan.await(1500, TimeUnit.MILLISECONDS);
						return "first";
					});
				}
				catch (Throwable ex) {
					return ex;
				}
			});
			await().atMost(Duration.ofSeconds(5)).until(() -> onPrimary(operation) != null);
			Operation waiting = new Operation(operation.name(), new OperationSettings(Duration.ofSeconds(1),
					Duration.ofHours(1), OnInProgress.WAIT, Duration.ofSeconds(5)), operation.codec(),
					operation.keySource());
			assertThat(engine.execute(waiting, "k", null, () -> {
				effects.incrementAndGet();
				duplicateRan.countDown();
				return "duplicate";
			})).isEqualTo("first");
			assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
			assertThat(effects).hasValue(1);
			assertThat(listener.outcomes()).containsExactly(Outcome.EXECUTED, Outcome.REPLAYED);
		}
		finally {
			thawer.shutdownNow();
		}
	}

	// Completion is retried for one lease (1 second), each try waiting for the replica
	@Test
	void replicaFrozenWhileTheMethodRunsFailsTheCallThatRanOnce() throws Throwable {
		RecordingListener listener = new RecordingListener();
		try (IdempotencyEngine engine = new IdempotencyEngine(store(), IdempotencyDefaults.STANDARD,
				List.of(listener))) {
			Operation operation = operation(Duration.ofSeconds(1));
			AtomicInteger runs = new AtomicInteger();
			assertThatExceptionOfType(IdempotencyCompletionException.class)
				.isThrownBy(() -> engine.execute(operation, "k", null, () -> {
					replica.freeze();
					return "r" + runs.incrementAndGet();
				}))
				.withMessageContaining("ran its method, and the store holds its record COMPLETED")
				.havingRootCause()
				.withMessageContaining("Only 0 of 1 Redis replicas acknowledged the completion");
			replica.thaw();
			assertThat(engine.execute(operation, "k", null, () -> "r" + runs.incrementAndGet())).isEqualTo("r1");
			assertThat(runs).hasValue(1);
			assertThat(listener.outcomes()).containsExactly(Outcome.STORE_ERROR, Outcome.REPLAYED);
		}
	}

	// The completion that failed for want of acknowledgements ran on the primary: its
	// retry finds it completed, writes it again and waits for the replica once more.
	@Test
	void replicaBackWhileTheCompletionIsRetriedRecordsTheResultThere() throws Throwable {
		AtomicInteger refused = new AtomicInteger();
		IdempotencyStore store = new ForwardingStore(store()) {

			@Override
			public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
				try {
					return super.complete(key, owner, fence, result, retention);
				}
				catch (IdempotencyStoreException ex) {
					refused.incrementAndGet();
					replica.thaw();
					throw ex;
				}
			}

		};
		try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of())) {
			Operation operation = operation(Duration.ofSeconds(30));
			AtomicInteger runs = new AtomicInteger();
			assertThat(engine.execute(operation, "k", null, () -> {
				replica.freeze();
				return "r" + runs.incrementAndGet();
			})).isEqualTo("r1");
			assertThat(refused).hasValue(1);
			assertThat(onReplica(operation)).isEqualTo(onPrimary(operation)).isNotNull();
			assertThat(engine.execute(operation, "k", null, () -> "r" + runs.incrementAndGet())).isEqualTo("r1");
			assertThat(runs).hasValue(1);
		}
	}

	// A completion too few replicas acknowledged is retried until a renewal finds the
	// record completed by this very attempt: the caller is then told at once that it is
	// COMPLETED on the primary, instead of waiting out the lock timeout; the duplicate's
	// replay waits for the replica itself, once it is back
	@Test
	void renewalThatFindsAnUnacknowledgedCompletionCompletedEndsItsRetries() throws Throwable {
		try (IdempotencyEngine engine = new IdempotencyEngine(store(), IdempotencyDefaults.STANDARD, List.of())) {
			// Renewed a second after the grant (sent 250 ms early); retried for 3 s
			// without the renewal's answer
			Operation operation = operation(Duration.ofSeconds(3));
			AtomicInteger runs = new AtomicInteger();
			long start = System.nanoTime();
			assertThatExceptionOfType(IdempotencyCompletionException.class)
				.isThrownBy(() -> engine.execute(operation, "k", null, () -> {
					replica.freeze();
					return "r" + runs.incrementAndGet();
				}))
				.withMessageContaining("the store holds its record COMPLETED")
				.havingRootCause()
				.withMessageContaining("Only 0 of 1 Redis replicas acknowledged the completion");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
			replica.thaw();
			assertThat(engine.execute(operation, "k", null, () -> "r" + runs.incrementAndGet())).isEqualTo("r1");
			assertThat(onReplica(operation)).isEqualTo(onPrimary(operation)).isNotNull();
			assertThat(runs).hasValue(1);
		}
	}

	// The batch's completion fails at its first item, for want of acknowledgements; the
	// items completed alone share one lock timeout (1 s) instead of taking one each, and
	// those not reached by then fail without another try
	@Test
	void batchCompletionThatTooFewReplicasAcknowledgeTakesOneLockTimeoutForTheWholeBatch() {
		AtomicInteger completions = new AtomicInteger();
		IdempotencyStore store = new ForwardingStore(store()) {

			@Override
			public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
				completions.incrementAndGet();
				return super.complete(key, owner, fence, result, retention);
			}

		};
		try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of())) {
			Operation operation = operation(Duration.ofSeconds(1));
			List<String> keys = List.of("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9");
			AtomicInteger runs = new AtomicInteger();
			List<BatchOutcome<String, @Nullable Object>> outcomes = engine.executeAll(operation, keys, (key) -> key,
					null, (key) -> {
						if (runs.incrementAndGet() == keys.size()) {
							replica.freeze();
						}
						return key;
					});
			assertThat(runs).hasValue(10);
			assertThat(outcomes)
				.allSatisfy((outcome) -> assertThat(outcome).isInstanceOfSatisfying(BatchOutcome.Failed.class,
						(failed) -> assertThat(failed.exception()).isInstanceOf(IdempotencyCompletionException.class)));
			// The batch's own try, then at most the tries that fit in one lock timeout
			// of 300 ms waits: every item once would be 10 more, and one lock timeout
			// each about 30
			assertThat(completions.get()).isLessThan(1 + keys.size());
			assertThat(outcomes).last()
				.isInstanceOfSatisfying(BatchOutcome.Failed.class, (failed) -> assertThat(failed.exception())
					.hasMessageContaining("the lock timeout that completing the batch may take ran out"));
		}
	}

	// The completion reached Redis, its reply did not: a renewal finds the record
	// completed by this very attempt, which ends the retries and says so
	@Test
	void renewalThatFindsTheRecordCompletedByItsOwnAttemptEndsTheCompletionRetries() throws Throwable {
		AtomicInteger completions = new AtomicInteger();
		RedisIdempotencyStore redis = new RedisIdempotencyStore(factory, PREFIX,
				RedisIdempotencyStore.DEFAULT_COMMAND_TIMEOUT, ReplicaAcks.NONE);
		IdempotencyStore store = new ForwardingStore(redis) {

			@Override
			public CompletionStage<RenewalResult> renewLease(RecordKey key, String owner, long fence, Duration lease,
					Duration retention) {
				return redis.renewLease(key, owner, fence, lease, retention);
			}

			@Override
			public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
				completions.incrementAndGet();
				super.complete(key, owner, fence, result, retention);
				throw new IdempotencyStoreException("The reply to the completion was lost");
			}

		};
		try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of())) {
			// Renewed every 500 ms (sent 125 ms early); retried for 3 s without the
			// renewal
			Operation operation = operation(Duration.ofMillis(1500));
			assertThatExceptionOfType(IdempotencyCompletionException.class)
				.isThrownBy(() -> engine.execute(operation, "k", null, () -> "r"))
				.withMessageContaining("the store holds its record COMPLETED")
				.withMessageContaining("a renewal found it completed by this attempt");
			assertThat(engine.execute(operation, "k", null, () -> "again")).isEqualTo("r");
		}
	}

	// A batch keeps the guarantee of single calls: every claim and result it is told of
	// is on the replica
	@Test
	void batchWaitsForTheReplicaForEveryItem() {
		try (IdempotencyEngine engine = new IdempotencyEngine(store(), IdempotencyDefaults.STANDARD, List.of())) {
			Operation operation = operation(Duration.ofSeconds(30));
			List<String> keys = List.of("k", "k2", "k3");
			AtomicInteger runs = new AtomicInteger();
			replica.freeze();
			assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(
					() -> engine.executeAll(operation, keys, (key) -> key, null, (key) -> key + runs.incrementAndGet()))
				.withMessageContaining("Only 0 of 1 Redis replicas acknowledged the claim");
			assertThat(runs).hasValue(0);
			replica.thaw();
			assertThat(engine.executeAll(operation, keys, (key) -> key, null, (key) -> key + runs.incrementAndGet()))
				.allMatch(BatchOutcome.Executed.class::isInstance);
			assertThat(runs).hasValue(3);
			for (String key : keys) {
				assertThat(get(replicaFactory, operation, key)).isEqualTo(get(factory, operation, key)).isNotNull();
			}
		}
	}

	// Replica acknowledgements take the items one after the other: a value that is not a
	// record fails its own item, and the items around it keep what Redis answered them
	@Test
	void valueThatIsNotARecordRunsOnlyItsOwnItemUnprotectedWhenTheStoreFailureProceeds() {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		try (IdempotencyEngine engine = new IdempotencyEngine(store(), new IdempotencyDefaults(standard.settings(),
				StoreFailurePolicy.PROCEED, standard.maxKeyLength(), standard.maxResultSize(), standard.operations()),
				List.of())) {
			Operation operation = operation(Duration.ofSeconds(30));
			AtomicInteger runs = new AtomicInteger();
			List<String> done = List.of("before", "after");
			engine.executeAll(operation, done, (key) -> key, null, (key) -> key + runs.incrementAndGet());
			try (RedisConnection connection = factory.getConnection()) {
				connection.stringCommands()
					.set((PREFIX + operation.name() + ":corrupt").getBytes(StandardCharsets.UTF_8),
							"not a record".getBytes(StandardCharsets.UTF_8));
			}
			List<BatchOutcome<String, @Nullable Object>> outcomes = engine.executeAll(operation,
					List.of("before", "corrupt", "after"), (key) -> key, null, (key) -> key + runs.incrementAndGet());
			assertThat(runs).hasValue(3);
			assertThat(outcomes.get(0)).isEqualTo(new BatchOutcome.Replayed<>("before", "before", "before1"));
			assertThat(outcomes.get(1)).isEqualTo(new BatchOutcome.Executed<>("corrupt", "corrupt", "corrupt3"));
			assertThat(outcomes.get(2)).isEqualTo(new BatchOutcome.Replayed<>("after", "after", "after2"));
		}
	}

	// The acquire goes on a connection of the store's own, for WAIT; the engine abandons
	// an acquire that timed out on the connection the factory shares. An acquire held up
	// on its way to Redis lands after that abandon: it must still leave no claim behind
	// that no attempt will ever complete, and that would hold off duplicates for a lease.
	@Test
	void acquireThatTimedOutOnItsWayToRedisLeavesNoClaimBehindWhenItLands() throws Throwable {
		String host = InetAddress.getLoopbackAddress().getHostAddress();
		try (CommandHoldingProxy proxy = new CommandHoldingProxy(servers.primary().host(), servers.primary().port())) {
			LettuceConnectionFactory proxied = TestRedis.connectionFactory(host, proxy.port());
			RedisIdempotencyStore store = new RedisIdempotencyStore(proxied, PREFIX, Duration.ofMillis(500),
					ONE_REPLICA);
			try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of())) {
				Operation operation = operation(Duration.ofMinutes(5));
				RecordKey record = new RecordKey(operation.name(), "k");
				AtomicInteger runs = new AtomicInteger();
				store.read(record);
				engine.execute(operation, "warm-up", null, () -> "w");
				assertThat(proxy.connections()).as("the shared connection, then one of the store's own").isEqualTo(2);
				proxy.holdCommands(1);
				long scripts = scriptsRun();
				assertThatExceptionOfType(IdempotencyStoreException.class)
					.isThrownBy(() -> engine.execute(operation, "k", null, () -> "r" + runs.incrementAndGet()))
					.withMessageContaining("Redis failed to acquire");
				await().atMost(DEADLINE).until(() -> scriptsRun() > scripts);
				proxy.releaseCommands();
				await().atMost(DEADLINE)
					.untilAsserted(() -> assertThat(state(record)).as("the record once the acquire landed")
						.isEqualTo(RecordState.FAILED));
				assertThat(engine.execute(operation, "k", null, () -> "r" + runs.incrementAndGet())).isEqualTo("r1");
				assertThat(runs).hasValue(1);
			}
			finally {
				proxied.destroy();
			}
		}
	}

	// The same on a primary that stalls (frozen) with the scripts cached, as in an
	// application that has run a while: it reads its connections in the order they
	// became readable, the shared one first when something was sent on it before the
	// acquire, and runs the abandon before the acquire it follows.
	@Test
	void acquireThatTimedOutOnAFrozenPrimaryLeavesNoClaimBehindWhenItRuns() throws Throwable {
		RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX, Duration.ofMillis(500), ONE_REPLICA);
		try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of())) {
			Operation operation = operation(Duration.ofMinutes(5));
			RecordKey record = new RecordKey(operation.name(), "k");
			RecordKey other = new RecordKey(operation.name(), "other");
			AtomicInteger runs = new AtomicInteger();
			engine.execute(operation, "warm-up", null, () -> "w");
			store.release(other, "nobody", 1, Duration.ofHours(1));
			store.renew(other, "nobody", 1, Duration.ofHours(1), Duration.ofHours(1));
			servers.primary().freeze();
			try {
				store.renewAsync(other, "nobody", 1, Duration.ofHours(1), Duration.ofHours(1));
				assertThatExceptionOfType(IdempotencyStoreException.class)
					.isThrownBy(() -> engine.execute(operation, "k", null, () -> "r" + runs.incrementAndGet()))
					.withMessageContaining("Redis failed to acquire");
			}
			finally {
				servers.primary().thaw();
			}
			await().atMost(DEADLINE)
				.untilAsserted(() -> assertThat(state(record)).as("the record once the acquire ran")
					.isEqualTo(RecordState.FAILED));
			assertThat(engine.execute(operation, "k", null, () -> "r" + runs.incrementAndGet())).isEqualTo("r1");
			assertThat(runs).hasValue(1);
		}
	}

	private static long scriptsRun() {
		try (RedisConnection connection = factory.getConnection()) {
			Properties stats = connection.serverCommands().info("commandstats");
			assertThat(stats).isNotNull();
			return calls(stats, "cmdstat_evalsha") + calls(stats, "cmdstat_eval");
		}
	}

	private static long calls(Properties stats, String command) {
		String line = stats.getProperty(command);
		return (line != null) ? Long.parseLong(line.substring("calls=".length(), line.indexOf(','))) : 0;
	}

	private static @Nullable RecordState state(RecordKey record) {
		return new RedisIdempotencyStore(factory, PREFIX).read(record).map(IdempotencyRecord::state).orElse(null);
	}

	private static RedisIdempotencyStore store() {
		return new RedisIdempotencyStore(factory, PREFIX, RedisIdempotencyStore.DEFAULT_COMMAND_TIMEOUT, ONE_REPLICA);
	}

	private static Operation operation(Duration lease) {
		return new Operation("acks-" + UUID.randomUUID(),
				new OperationSettings(lease, Duration.ofHours(1), OnInProgress.REJECT, Duration.ofSeconds(1)),
				new JacksonResultCodec(JsonMapper.builder().build()).forType(ResolvableType.forClass(String.class)),
				"the test's key");
	}

	private static byte[] onPrimary(Operation operation) {
		return get(factory, operation);
	}

	private static byte[] onReplica(Operation operation) {
		return get(replicaFactory, operation);
	}

	private static byte[] get(LettuceConnectionFactory factory, Operation operation) {
		return get(factory, operation, "k");
	}

	private static byte[] get(LettuceConnectionFactory factory, Operation operation, String key) {
		try (RedisConnection connection = factory.getConnection()) {
			return connection.stringCommands()
				.get((PREFIX + operation.name() + ":" + key).getBytes(StandardCharsets.UTF_8));
		}
	}

}
