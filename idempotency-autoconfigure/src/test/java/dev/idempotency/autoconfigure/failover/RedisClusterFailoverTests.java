package dev.idempotency.autoconfigure.failover;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.failover.CallStream.Phase;
import dev.idempotency.autoconfigure.failover.StreamCalls.Audit;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.test.redis.RedisCluster;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * An application configured only through {@code spring.data.redis.cluster.*} on a
 * three-primary cluster of its own, whose primaries are killed ({@code SIGKILL}) while it
 * calls: what a failover keeps of claims and results, with and without
 * {@code idempotency.redis.replica-acks}.
 */
@FailoverTests
class RedisClusterFailoverTests {

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private static RedisCluster cluster;

	private static NodeCommands nodes;

	private final List<RedisServer> frozen = new ArrayList<>();

	private Predicate<String> victimKeys = (key) -> false;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				JacksonAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.nodeAddresses(),
				"spring.data.redis.lettuce.cluster.refresh.adaptive=true",
				"spring.data.redis.lettuce.cluster.refresh.period=1s", "spring.data.redis.timeout=3s")
		.withBean(ExecutionLedger.class);

	@BeforeAll
	static void startCluster() {
		cluster = TestRedis.startCluster();
		nodes = new NodeCommands();
	}

	@AfterAll
	static void stopCluster() {
		nodes.close();
		cluster.close();
	}

	@AfterEach
	void restoreEveryNode() {
		this.frozen.forEach(RedisServer::thaw);
		cluster.nodes().forEach(RedisServer::restart);
		List<RedisServer> replicas = await().atMost(DEADLINE)
			.ignoreExceptions()
			.until(() -> cluster.primaries().stream().map(cluster::replicaOf).toList(), (found) -> found.size() == 3);
		replicas.forEach(nodes::awaitLinked);
	}

	@Test
	void withoutReplicaAcksAResultThatNoReplicaReceivedIsLostWithItsPrimaryAndTheMethodRunsAgain() {
		this.contextRunner.run((context) -> {
			ExecutionLedger ledger = context.getBean(ExecutionLedger.class);
			IdempotencyStore store = context.getBean(IdempotencyStore.class);
			String key = "lost-" + UUID.randomUUID();
			RecordKey record = new RecordKey(ExecutionLedger.NAME, key);
			RedisServer primary = cluster.primaryOf(ExecutionLedger.redisKey(ExecutionLedger.NAME, key));
			RedisServer replica = cluster.replicaOf(primary);
			ledger.charge("warm-up-" + UUID.randomUUID());
			cutOff(replica, primary);
			Execution first = ledger.charge(key);
			assertThat(store.read(record)).map(IdempotencyRecord::state).hasValue(RecordState.COMPLETED);
			primary.kill();
			thaw(replica);
			assertThat(cluster.awaitPromotion(primary)).isSameAs(replica);
			assertThat(awaitRead(store, record)).isEmpty();
			Execution second = ledger.charge(key);
			assertThat(second.id()).isNotEqualTo(first.id());
			assertThat(second.run()).isEqualTo(2);
			assertThat(ledger.runs(key)).isEqualTo(2);
		});
	}

	@Test
	void withReplicaAcksACompletionThatNoReplicaAcknowledgedFailsTheCallAndIsNotReplayedAfterTheFailover() {
		this.contextRunner.withPropertyValues("idempotency.redis.replica-acks=1", "idempotency.lock-timeout=2s")
			.run((context) -> {
				ExecutionLedger ledger = context.getBean(ExecutionLedger.class);
				IdempotencyStore store = context.getBean(IdempotencyStore.class);
				String key = "unacknowledged-" + UUID.randomUUID();
				RecordKey record = new RecordKey(ExecutionLedger.HELD, key);
				RedisServer primary = cluster.primaryOf(ExecutionLedger.redisKey(ExecutionLedger.HELD, key));
				RedisServer replica = cluster.replicaOf(primary);
				CountDownLatch started = new CountDownLatch(1);
				CountDownLatch release = new CountDownLatch(1);
				CompletableFuture<Execution> call = HeldCalls.inFlight(ledger, key, started, release);
				assertThat(started.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
				cutOff(replica, primary);
				release.countDown();
				assertThat(call).failsWithin(DEADLINE)
					.withThrowableThat()
					.havingCause()
					.isInstanceOf(IdempotencyCompletionException.class)
					.havingRootCause()
					.withMessageContaining("Only 0 of 1 Redis replicas acknowledged the completion");
				primary.kill();
				thaw(replica);
				assertThat(cluster.awaitPromotion(primary)).isSameAs(replica);
				assertThat(awaitRead(store, record)).map(IdempotencyRecord::state).hasValue(RecordState.IN_PROGRESS);
				primary.restart();
				nodes.awaitLinked(primary);
				Execution retried = await().atMost(DEADLINE)
					.ignoreExceptionsMatching(HeldCalls::refusedBeforeRunning)
					.until(() -> HeldCalls.duplicate(ledger, key), (e) -> true);
				assertThat(retried.run()).isEqualTo(2);
				assertThat(ledger.runs(key)).isEqualTo(2);
			});
	}

	@Test
	void withReplicaAcksAnAcknowledgedResultAndAnAttemptInFlightSurviveTheKillOfTheirPrimary() {
		this.contextRunner.withPropertyValues("idempotency.redis.replica-acks=1", "idempotency.lock-timeout=10s")
			.run((context) -> {
				ExecutionLedger ledger = context.getBean(ExecutionLedger.class);
				IdempotencyStore store = context.getBean(IdempotencyStore.class);
				String done = "done-" + UUID.randomUUID();
				RedisServer primary = cluster.primaryOf(ExecutionLedger.redisKey(ExecutionLedger.NAME, done));
				RedisServer replica = cluster.replicaOf(primary);
				String inFlight = keyOn(primary, ExecutionLedger.HELD);
				RecordKey inFlightRecord = new RecordKey(ExecutionLedger.HELD, inFlight);
				Execution completed = ledger.charge(done);
				CountDownLatch started = new CountDownLatch(1);
				CountDownLatch release = new CountDownLatch(1);
				CompletableFuture<Execution> held = HeldCalls.inFlight(ledger, inFlight, started, release);
				assertThat(started.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
				primary.kill();
				assertThat(cluster.awaitPromotion(primary)).isSameAs(replica);
				IdempotencyRecord claim = awaitRead(store, inFlightRecord).orElseThrow();
				assertThat(claim.state()).isEqualTo(RecordState.IN_PROGRESS);
				// No replica left to acknowledge what a replay hands out, until one
				// rejoins
				assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> ledger.charge(done))
					.withMessageContaining("its result is not replayed");
				assertThatExceptionOfType(IdempotencyInProgressException.class)
					.isThrownBy(() -> HeldCalls.duplicate(ledger, inFlight));
				await().atMost(DEADLINE)
					.until(() -> store.read(inFlightRecord).orElseThrow().leaseExpiresAt(),
							(lease) -> lease.isAfter(claim.leaseExpiresAt()));
				primary.restart();
				nodes.awaitLinked(primary);
				assertThat(ledger.charge(done)).isEqualTo(completed);
				release.countDown();
				Execution result = held.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
				assertThat(HeldCalls.duplicate(ledger, inFlight)).isEqualTo(result);
				assertThat(ledger.runs(done)).isEqualTo(1);
				assertThat(ledger.runs(inFlight)).isEqualTo(1);
			});
	}

	@Test
	void withReplicaAcksNoCallOfAStreamGetsAWrongResultOrLosesItsRecordWhenAPrimaryIsKilled() {
		this.contextRunner.withPropertyValues("idempotency.redis.replica-acks=1", "idempotency.lock-timeout=2s")
			.run((context) -> {
				ExecutionLedger ledger = context.getBean(ExecutionLedger.class);
				StreamCalls calls = streamAcrossTheKillOfAPrimary(ledger, "with replica-acks=1");
				Audit audit = calls.audit(context.getBean(IdempotencyStore.class), ledger, (key) -> true);
				System.err.println("With replica-acks=1, " + audit.summary());
				assertThat(audit.wrongResults()).as(calls.trails(audit.wrongResults())).isEmpty();
				assertThat(audit.unannouncedRuns()).as(calls.trails(audit.unannouncedRuns())).isEmpty();
				assertThat(audit.lostExecutions()).as(calls.trails(audit.lostExecutions())).isEmpty();
				assertThat(audit.lostReplays()).as(calls.trails(audit.lostReplays())).isEmpty();
			});
	}

	@Test
	void withoutReplicaAcksAStreamThroughTheKillOfAPrimaryCanLoseRecordsOfThatPrimaryOnly() {
		this.contextRunner.withPropertyValues("idempotency.lock-timeout=2s").run((context) -> {
			ExecutionLedger ledger = context.getBean(ExecutionLedger.class);
			StreamCalls calls = streamAcrossTheKillOfAPrimary(ledger, "without replica acks");
			IdempotencyStore store = context.getBean(IdempotencyStore.class);
			Audit others = calls.audit(store, ledger, this.victimKeys.negate());
			Audit victims = calls.audit(store, ledger, this.victimKeys);
			System.err.println("Without replica acks, of the killed primary's " + victims.summary());
			assertThat(others.wrongResults()).isEmpty();
			assertThat(others.lostExecutions()).isEmpty();
			assertThat(others.lostReplays()).isEmpty();
		});
	}

	private StreamCalls streamAcrossTheKillOfAPrimary(ExecutionLedger ledger, String description) throws Exception {
		RedisServer victim = cluster.primaries().get(1);
		BitSet slots = nodes.slotsOf(victim);
		this.victimKeys = NodeCommands.inSlots(slots);
		long started = System.nanoTime();
		try (CallStream stream = CallStream.start(ledger, 4)) {
			stream.awaitSucceeded(Phase.BEFORE, 300, this.victimKeys, DEADLINE);
			victim.kill();
			long killed = System.nanoTime();
			stream.enter(Phase.FAILOVER);
			cluster.awaitPromotion(victim);
			long promoted = System.nanoTime();
			victim.restart();
			nodes.awaitLinked(victim);
			stream.enter(Phase.AFTER);
			stream.awaitSucceeded(Phase.AFTER, 300, this.victimKeys, DEADLINE);
			StreamCalls calls = stream.stop();
			System.err.printf(
					"Cluster stream %s: primary killed after %d ms, promotion seen %d ms later, stopped after %d ms%n%s",
					description, millis(killed - started), millis(promoted - killed),
					millis(System.nanoTime() - started), calls.summary());
			assertThat(calls.unexpected()).isEmpty();
			return calls;
		}
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	private void cutOff(RedisServer replica, RedisServer primary) {
		replica.freeze();
		this.frozen.add(replica);
		nodes.cutOffReplicas(primary);
	}

	private void thaw(RedisServer replica) {
		replica.thaw();
		this.frozen.remove(replica);
	}

	private static Optional<IdempotencyRecord> awaitRead(IdempotencyStore store, RecordKey record) {
		return await().atMost(DEADLINE)
			.ignoreExceptionsInstanceOf(IdempotencyStoreException.class)
			.until(() -> store.read(record), (read) -> true);
	}

	private static String keyOn(RedisServer primary, String name) {
		while (true) {
			String key = "in-flight-" + UUID.randomUUID();
			if (cluster.primaryOf(ExecutionLedger.redisKey(name, key)).equals(primary)) {
				return key;
			}
		}
	}

}
