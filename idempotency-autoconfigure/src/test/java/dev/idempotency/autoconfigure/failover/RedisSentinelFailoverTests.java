package dev.idempotency.autoconfigure.failover;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.failover.CallStream.Phase;
import dev.idempotency.autoconfigure.failover.StreamCalls.Audit;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.test.redis.RedisSentinels;
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
 * An application configured only through {@code spring.data.redis.sentinel.*}, on a
 * primary, a replica and three sentinels of its own: through a failover that the
 * sentinels are told to make ({@code SENTINEL FAILOVER}) while threads call it, and
 * through the kill of a primary.
 * <p>
 * A forced failover promotes the replica at once, and the former primary goes on taking
 * writes until the sentinels turn it into a replica a few seconds later, when it drops
 * them all: what the servers' {@code min-replicas-to-write} changes.
 */
@FailoverTests
class RedisSentinelFailoverTests {

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private static final Predicate<String> ALL = (key) -> true;

	private static RedisSentinels sentinels;

	private static NodeCommands nodes;

	private final List<RedisServer> frozen = new ArrayList<>();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				JacksonAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.sentinel.master=" + sentinels.masterName(),
				"spring.data.redis.sentinel.nodes=" + sentinels.sentinelNodes(), "spring.data.redis.timeout=3s",
				"idempotency.lock-timeout=2s")
		.withBean(ExecutionLedger.class);

	@BeforeAll
	static void startSentinels() {
		sentinels = TestRedis.startSentinels();
		nodes = new NodeCommands();
	}

	@AfterAll
	static void stopSentinels() {
		nodes.close();
		sentinels.close();
	}

	@AfterEach
	void restoreBothServers() {
		this.frozen.forEach(RedisServer::thaw);
		primaryAndReplica().forEach((server) -> nodes.configSet(server, "min-replicas-to-write", "0"));
	}

	@Test
	void withReplicaAcksAndMinReplicasToWriteNoCallOfAStreamGetsAWrongResultOrLosesItsRecordThroughAFailover() {
		for (RedisServer server : primaryAndReplica()) {
			nodes.configSet(server, "min-replicas-max-lag", "1");
			nodes.configSet(server, "min-replicas-to-write", "1");
		}
		this.contextRunner.withPropertyValues("idempotency.redis.replica-acks=1").run((context) -> {
			ExecutionLedger ledger = context.getBean(ExecutionLedger.class);
			StreamCalls calls = streamAcrossAFailover(ledger, "with replica-acks=1 and min-replicas-to-write 1");
			Audit audit = calls.audit(context.getBean(IdempotencyStore.class), ledger, ALL);
			System.err.println("With replica-acks=1 and min-replicas-to-write 1, " + audit.summary());
			assertThat(audit.wrongResults()).as(calls.trails(audit.wrongResults())).isEmpty();
			assertThat(audit.unannouncedRuns()).as(calls.trails(audit.unannouncedRuns())).isEmpty();
			assertThat(audit.lostExecutions()).as(calls.trails(audit.lostExecutions())).isEmpty();
			assertThat(audit.lostReplays()).as(calls.trails(audit.lostReplays())).isEmpty();
		});
	}

	@Test
	void withReplicaAcksNoCallOfAStreamGetsAWrongResultOrLosesItsRecordThroughAFailover() {
		this.contextRunner.withPropertyValues("idempotency.redis.replica-acks=1").run((context) -> {
			ExecutionLedger ledger = context.getBean(ExecutionLedger.class);
			StreamCalls calls = streamAcrossAFailover(ledger, "with replica-acks=1");
			Audit audit = calls.audit(context.getBean(IdempotencyStore.class), ledger, ALL);
			System.err.println("With replica-acks=1, " + audit.summary());
			assertThat(audit.wrongResults()).as(calls.trails(audit.wrongResults())).isEmpty();
			assertThat(audit.unannouncedRuns()).as(calls.trails(audit.unannouncedRuns())).isEmpty();
			assertThat(audit.lostExecutions()).as(calls.trails(audit.lostExecutions())).isEmpty();
			assertThat(audit.lostReplays()).as(calls.trails(audit.lostReplays())).isEmpty();
		});
	}

	@Test
	void withoutReplicaAcksAStreamGoesOnThroughAFailover() {
		this.contextRunner.run((context) -> {
			ExecutionLedger ledger = context.getBean(ExecutionLedger.class);
			StreamCalls calls = streamAcrossAFailover(ledger, "without replica acks");
			Audit audit = calls.audit(context.getBean(IdempotencyStore.class), ledger, ALL);
			System.err.println("Without replica acks, " + audit.summary());
		});
	}

	@Test
	void withReplicaAcksNoDuplicateIsHandedACompletionThatNoReplicaAcknowledgedAndThatAFailoverLoses() {
		this.contextRunner.withPropertyValues("idempotency.redis.replica-acks=1").run((context) -> {
			ExecutionLedger ledger = context.getBean(ExecutionLedger.class);
			String key = "unacknowledged-" + UUID.randomUUID();
			List<RedisServer> servers = primaryAndReplica();
			RedisServer primary = servers.get(0);
			RedisServer replica = servers.get(1);
			CountDownLatch started = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Execution> first = HeldCalls.inFlight(ledger, key, started, release);
			assertThat(started.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
			replica.freeze();
			this.frozen.add(replica);
			nodes.cutOffReplicas(primary);
			release.countDown();
			assertThat(first).failsWithin(DEADLINE)
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(IdempotencyCompletionException.class);
			// Completed on the old primary only: a duplicate is refused, not handed run 1
			assertThatExceptionOfType(IdempotencyStoreException.class)
				.isThrownBy(() -> HeldCalls.duplicate(ledger, key))
				.withStackTraceContaining("its result is not replayed");
			primary.kill();
			replica.thaw();
			this.frozen.remove(replica);
			await().atMost(DEADLINE).ignoreExceptions().until(() -> nodes.sentinelsAgreeOn(sentinels, replica));
			primary.restart();
			await().atMost(DEADLINE).ignoreExceptions().until(sentinels::replica, primary::equals);
			nodes.awaitLinked(primary);
			Execution again = await().atMost(DEADLINE)
				.ignoreExceptionsMatching(HeldCalls::refusedBeforeRunning)
				.until(() -> HeldCalls.duplicate(ledger, key), (found) -> true);
			assertThat(again.run()).isEqualTo(2);
			assertThat(HeldCalls.duplicate(ledger, key)).isEqualTo(again);
		});
	}

	private void freeze(RedisServer server) {
		server.freeze();
		this.frozen.add(server);
	}

	private void thaw(RedisServer server) {
		server.thaw();
		this.frozen.remove(server);
	}

	// Once the sentinels agree with the servers: for a while after a failover or a
	// restart, a sentinel may still report a former role
	private static List<RedisServer> primaryAndReplica() {
		return await().atMost(DEADLINE)
			.ignoreExceptions()
			.until(() -> List.of(sentinels.primary(), sentinels.replica()),
					(servers) -> nodes.isLinkedReplica(servers.get(1), servers.get(0)));
	}

	@Test
	void withReplicaAcksACallWhoseCompletionWaitsOnTheOldPrimaryReturnsOnlyOnceTheNewPrimaryHasItsRecord()
			throws Exception {
		this.contextRunner
			.withPropertyValues("idempotency.redis.replica-acks=1", "idempotency.redis.replica-ack-timeout=20s",
					"idempotency.lock-timeout=60s")
			.run((context) -> {
				ExecutionLedger ledger = context.getBean(ExecutionLedger.class);
				IdempotencyStore store = context.getBean(IdempotencyStore.class);
				String key = "waiting-" + UUID.randomUUID();
				List<RedisServer> servers = primaryAndReplica();
				RedisServer primary = servers.get(0);
				RedisServer replica = servers.get(1);
				CountDownLatch started = new CountDownLatch(1);
				CountDownLatch release = new CountDownLatch(1);
				CompletableFuture<Execution> first = HeldCalls.inFlight(ledger, key, started, release);
				assertThat(started.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
				freeze(replica);
				nodes.cutOffReplicas(primary);
				release.countDown();
				await().atMost(DEADLINE)
					.until(() -> nodes.clientList(primary), (clients) -> clients.lines()
						.anyMatch((client) -> client.contains("flags=b") && client.contains("cmd=wait")));
				freeze(primary);
				thaw(replica);
				await().atMost(DEADLINE).ignoreExceptions().until(sentinels::primary, replica::equals);
				thaw(primary);
				assertThat(primaryAndReplica()).containsExactly(replica, primary);
				Execution returned = first.handle((execution, failure) -> {
					assertThat(failure).isNull();
					return execution;
				}).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
				assertThat(store.read(new RecordKey(ExecutionLedger.HELD, key))).map(IdempotencyRecord::state)
					.hasValue(RecordState.COMPLETED);
				assertThat(HeldCalls.duplicate(ledger, key)).isEqualTo(returned);
			});
	}

	private static StreamCalls streamAcrossAFailover(ExecutionLedger ledger, String description) throws Exception {
		RedisServer former = primaryAndReplica().get(0);
		long started = System.nanoTime();
		try (CallStream stream = CallStream.start(ledger, 4)) {
			stream.awaitSucceeded(Phase.BEFORE, 300, ALL, DEADLINE);
			stream.enter(Phase.FAILOVER);
			long failover = System.nanoTime();
			RedisServer promoted = sentinels.failover();
			long promotedAt = System.nanoTime();
			assertThat(promoted).isNotSameAs(former);
			// Until the sentinels and the servers agree on a linked pair again: on a
			// loaded machine the sentinels may fail over once more, back to the former
			// primary, before they see it linked to the promoted one
			primaryAndReplica();
			long demoted = System.nanoTime();
			stream.enter(Phase.AFTER);
			stream.awaitSucceeded(Phase.AFTER, 300, ALL, DEADLINE);
			StreamCalls calls = stream.stop();
			System.err.printf(
					"Sentinel stream %s: failover asked after %d ms, promotion seen %d ms later, primary and replica "
							+ "linked again %d ms after that, stopped after %d ms%n%s",
					description, millis(failover - started), millis(promotedAt - failover),
					millis(demoted - promotedAt), millis(System.nanoTime() - started), calls.summary());
			assertThat(calls.unexpected()).isEmpty();
			assertThat(calls.succeededIn(Phase.AFTER)).isPositive();
			return calls;
		}
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

}
