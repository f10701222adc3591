package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import dev.idempotency.test.redis.RedisReplicaSet;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.types.RedisClientInfo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Replica acknowledgements ({@code WAIT}) on a primary with one replica, whose records
 * are read on the replica itself: with each way of sending scripts.
 */
class RedisReplicaAcksTests {

	private static final String PREFIX = "idempotency-acks:";

	private static final Duration ACK_TIMEOUT = Duration.ofMillis(500);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	private static final Duration DEADLINE = Duration.ofSeconds(20);

	private static RedisReplicaSet servers;

	private static RedisServer replica;

	private static LettuceConnectionFactory primaryFactory;

	private static LettuceConnectionFactory replicaFactory;

	// Shares no connection, as a client other than Lettuce: each script and its WAIT on a
	// connection taken from the factory for them
	private static LettuceConnectionFactory connectionPerScriptFactory;

	@BeforeAll
	static void startServers() {
		servers = TestRedis.startReplicaSet(1);
		replica = servers.replicas().get(0);
		primaryFactory = TestRedis.connectionFactory(servers.primary().host(), servers.primary().port());
		replicaFactory = TestRedis.connectionFactory(replica.host(), replica.port());
		connectionPerScriptFactory = TestRedis.connectionFactory(servers.primary().host(), servers.primary().port());
		connectionPerScriptFactory.setShareNativeConnection(false);
		awaitFirstAcknowledgement();
	}

	// After a full synchronisation Redis streams nothing to a replica, WAIT's request for
	// an acknowledgement included, until the replica's first periodic one (up to a
	// second)
	static void awaitFirstAcknowledgement() {
		Runner.SHARED_LETTUCE.store(1, Duration.ofSeconds(10)).acquire(newKey(), request("warm-up"));
	}

	@AfterAll
	static void stopServers() {
		primaryFactory.destroy();
		replicaFactory.destroy();
		connectionPerScriptFactory.destroy();
		servers.close();
	}

	@AfterEach
	void thawReplica() {
		if (replica.isRunning()) {
			replica.thaw();
			servers.awaitReplicasInSync();
		}
	}

	@ParameterizedTest
	@EnumSource
	void claimAndCompletionAreOnTheReplicaWhenTheCallReturns(Runner runner) {
		RedisIdempotencyStore store = runner.store(1);
		RecordKey key = newKey();
		assertThat(store.acquire(key, request("a"))).isEqualTo(new Acquired(1, false));
		assertThat(onReplica(key)).isEqualTo(onPrimary(key)).isNotNull();
		assertThat(store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION)).isTrue();
		assertThat(onReplica(key)).isEqualTo(onPrimary(key));
		assertThat(store.acquire(key, request("b"))).isInstanceOf(Completed.class);
	}

	@ParameterizedTest
	@EnumSource
	void claimWaitsForTheReplicaWhileItIsFrozen(Runner runner) throws Exception {
		RedisIdempotencyStore store = runner.store(1, Duration.ofSeconds(10));
		RecordKey key = newKey();
		replica.freeze();
		CompletableFuture<Object> acquire = CompletableFuture.supplyAsync(() -> store.acquire(key, request("a")));
		await().atMost(DEADLINE).until(() -> onPrimary(key) != null);
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !acquire.isDone());
		replica.thaw();
		assertThat(acquire.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(new Acquired(1, false));
		assertThat(onReplica(key)).isEqualTo(onPrimary(key));
	}

	@ParameterizedTest
	@EnumSource
	void frozenReplicaFailsTheAcquireAfterTheAckTimeoutAndTheClaimIsReleased(Runner runner) {
		RedisIdempotencyStore store = runner.store(1);
		RecordKey key = newKey();
		replica.freeze();
		long started = System.nanoTime();
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> store.acquire(key, request("a")))
			.withMessageContaining("Only 0 of 1 Redis replicas acknowledged the claim of the idempotency record under "
					+ "key '" + redisKey(key) + "' within 500 ms")
			.withMessageContaining("idempotency.redis.replica-acks")
			.withMessageContaining("idempotency.redis.replica-ack-timeout")
			.withMessageEndingWith("the claim was released");
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		assertThat(took).isBetween(ACK_TIMEOUT, ACK_TIMEOUT.plus(COMMAND_TIMEOUT));
		assertThat(store.read(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.FAILED);
		replica.thaw();
		assertThat(store.acquire(key, request("b"))).isEqualTo(new Acquired(2, false));
	}

	@ParameterizedTest
	@EnumSource
	void frozenReplicaFailsTheCompleteThatASendAgainCompletesOnceItIsBack(Runner runner) {
		RedisIdempotencyStore store = runner.store(1);
		RecordKey key = newKey();
		store.acquire(key, request("a"));
		replica.freeze();
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION))
			.withMessageContaining("Only 0 of 1 Redis replicas acknowledged the completion of");
		assertThat(store.read(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.COMPLETED);
		replica.thaw();
		assertThat(store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION)).isTrue();
		assertThat(onReplica(key)).isEqualTo(onPrimary(key));
	}

	// A complete sent again on a new connection (after a reconnect, or another store)
	// finds the record completed: without a write of its own, WAIT on that connection
	// would count nothing to wait for, and answer at once while no replica has the
	// record.
	@ParameterizedTest
	@EnumSource
	void completeSentAgainOnANewConnectionWaitsForItsOwnWrite(Runner runner) {
		RecordKey key = newKey();
		RedisIdempotencyStore withoutAcks = new RedisIdempotencyStore(primaryFactory, PREFIX);
		withoutAcks.acquire(key, request("a"));
		servers.awaitReplicasInSync();
		replica.freeze();
		assertThat(withoutAcks.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION)).isTrue();
		RedisIdempotencyStore store = runner.store(1);
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION))
			.withMessageContaining("Only 0 of 1 Redis replicas acknowledged the completion of");
		replica.thaw();
		assertThat(store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION)).isTrue();
		assertThat(onReplica(key)).isEqualTo(onPrimary(key));
	}

	// From Redis 7.2 WAIT counts only its own connection's writes; before, every command
	// brings the connection's count up to every write so far, and the test above passes
	// without that write too.
	@Test
	void completeSentAgainWritesAndKeepsTheExpiry() {
		RedisIdempotencyStore store = Runner.SHARED_LETTUCE.store(1);
		RecordKey key = newKey();
		store.acquire(key, request("a"));
		store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION);
		long expiresAt = expiresAt(key);
		long waitsBefore = waits();
		long offsetBefore = replicationOffset();
		assertThat(store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION)).isTrue();
		assertThat(waits()).isEqualTo(waitsBefore + 1);
		assertThat(replicationOffset()).isGreaterThan(offsetBefore);
		// PEXPIRETIME reads the absolute expiry, in milliseconds; Redis 7.0 may add the
		// millisecond between PTTL and PEXPIRE, never take one away
		assertThat(expiresAt(key)).isBetween(expiresAt, expiresAt + 1);
	}

	// Lettuce sends again, after it reconnects, every command that had no reply when the
	// connection dropped. From Redis 7.2 a WAIT alone on a new connection counts none of
	// the script's writes, and answers at once that every replica acknowledged them;
	// older servers make it wait its whole timeout once more. A connection lost while
	// WAIT is pending fails the call at once, as unacknowledged.
	@Test
	void completeWhoseWaitIsSentAgainOnANewConnectionIsNotAcknowledged() throws Exception {
		LettuceConnectionFactory factory = reconnectingFactory();
		try {
			RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX, COMMAND_TIMEOUT,
					new ReplicaAcks(1, Duration.ofSeconds(10)));
			RecordKey key = newKey();
			store.acquire(key, request("a"));
			replica.freeze();
			CompletableFuture<Boolean> complete = CompletableFuture
				.supplyAsync(() -> store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION));
			killClientBlockedInWait();
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> complete.get(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
				.withCauseInstanceOf(IdempotencyStoreException.class);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void claimWhoseWaitIsSentAgainOnANewConnectionIsNotAcknowledged() throws Exception {
		LettuceConnectionFactory factory = reconnectingFactory();
		try {
			RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX, COMMAND_TIMEOUT,
					new ReplicaAcks(1, Duration.ofSeconds(10)));
			RecordKey key = newKey();
			replica.freeze();
			CompletableFuture<Object> acquire = CompletableFuture.supplyAsync(() -> store.acquire(key, request("a")));
			killClientBlockedInWait();
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> acquire.get(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
				.withCauseInstanceOf(IdempotencyStoreException.class);
		}
		finally {
			factory.destroy();
		}
	}

	// Lettuce's defaults, as Boot leaves them; the test factories reject commands while
	// disconnected, and so never send one again
	private static LettuceConnectionFactory reconnectingFactory() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(servers.primary().host(), servers.primary().port()));
		factory.afterPropertiesSet();
		return factory;
	}

	private static void killClientBlockedInWait() {
		try (RedisConnection connection = primaryFactory.getConnection()) {
			RedisClientInfo waiting = await().atMost(DEADLINE)
				.until(() -> connection.serverCommands()
					.getClientList()
					.stream()
					.filter((client) -> "wait".equals(client.get("cmd")) && client.getFlags().contains("b"))
					.findFirst()
					.orElse(null), Objects::nonNull);
			String[] address = waiting.getAddressPort().split(":");
			connection.serverCommands().killClient(address[0], Integer.parseInt(address[1]));
		}
	}

	@ParameterizedTest
	@EnumSource
	void moreAcknowledgementsThanReplicasIsAStoreError(Runner runner) {
		RedisIdempotencyStore store = runner.store(2);
		RecordKey key = newKey();
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> store.acquire(key, request("a")))
			.withMessageContaining("Only 1 of 2 Redis replicas acknowledged the claim");
		assertThat(store.read(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.FAILED);
	}

	@ParameterizedTest
	@EnumSource
	void withoutAcknowledgementsNothingWaits(Runner runner) {
		RedisIdempotencyStore store = runner.store(0);
		RecordKey key = newKey();
		long waits = waits();
		store.acquire(key, request("a"));
		store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION);
		assertThat(store.acquire(key, request("b"))).isInstanceOf(Completed.class);
		assertThat(waits()).isEqualTo(waits);
	}

	@ParameterizedTest
	@EnumSource
	void claimsCompletionsAndReplaysWaitOtherCommandsDoNot(Runner runner) {
		RedisIdempotencyStore store = runner.store(1);
		RecordKey key = newKey();
		long waits = waits();
		store.acquire(key, request("a"));
		assertThat(waits()).isEqualTo(waits + 1);
		assertThat(store.acquire(key, request("b"))).isInstanceOf(InProgress.class);
		assertThat(waits()).isEqualTo(waits + 1);
		store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION);
		assertThat(waits()).isEqualTo(waits + 2);
		assertThat(store.acquire(key, request("c"))).isInstanceOf(Completed.class);
		assertThat(waits()).isEqualTo(waits + 3);
		store.release(key, "a", 1, RETENTION);
		store.renew(key, "a", 1, LEASE, RETENTION);
		store.read(key);
		assertThat(waits()).isEqualTo(waits + 3);
	}

	// The completer's WAIT failed (or is still pending): the result is on the primary
	// only, and a failover would lose it, so a duplicate must not be handed it.
	@ParameterizedTest
	@EnumSource
	void completionNoReplicaAcknowledgedIsNotReplayedUntilOneDoes(Runner runner) {
		RedisIdempotencyStore store = runner.store(1);
		RecordKey key = newKey();
		store.acquire(key, request("a"));
		replica.freeze();
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION));
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> store.acquire(key, request("b")))
			.withMessageContaining("Only 0 of 1 Redis replicas acknowledged the result replayed from")
			.withMessageContaining("its result is not replayed");
		replica.thaw();
		assertThat(store.acquire(key, request("c"))).isInstanceOf(Completed.class);
		assertThat(onReplica(key)).isEqualTo(onPrimary(key));
	}

	// Written by a store that does not wait: a store that does replays it only once a
	// replica holds it, whatever connection wrote it
	@ParameterizedTest
	@EnumSource
	void replayOfAResultWrittenWithoutAcknowledgementsWaitsForTheReplica(Runner runner) throws Exception {
		RecordKey key = newKey();
		RedisIdempotencyStore withoutAcks = new RedisIdempotencyStore(primaryFactory, PREFIX);
		withoutAcks.acquire(key, request("a"));
		servers.awaitReplicasInSync();
		replica.freeze();
		assertThat(withoutAcks.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION)).isTrue();
		RedisIdempotencyStore store = runner.store(1, Duration.ofSeconds(10));
		CompletableFuture<AcquireResult> replay = CompletableFuture.supplyAsync(() -> store.acquire(key, request("b")));
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !replay.isDone());
		replica.thaw();
		assertThat(replay.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).isInstanceOf(Completed.class);
		assertThat(onReplica(key)).isEqualTo(onPrimary(key));
	}

	@Test
	void replayWritesAndKeepsTheExpiryOnlyWithAcknowledgements() {
		RedisIdempotencyStore store = Runner.SHARED_LETTUCE.store(1);
		RedisIdempotencyStore withoutAcks = new RedisIdempotencyStore(primaryFactory, PREFIX);
		RecordKey key = newKey();
		store.acquire(key, request("a"));
		store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION);
		long expiresAt = expiresAt(key);
		long offsetBefore = replicationOffset();
		assertThat(withoutAcks.acquire(key, request("b"))).isInstanceOf(Completed.class);
		assertThat(replicationOffset()).isEqualTo(offsetBefore);
		assertThat(store.acquire(key, request("c"))).isInstanceOf(Completed.class);
		assertThat(replicationOffset()).isGreaterThan(offsetBefore);
		assertThat(expiresAt(key)).isBetween(expiresAt, expiresAt + 1);
	}

	// WAIT holds the connection it is sent on: the application's commands on the
	// connection the factory shares must not queue behind it.
	@Test
	void waitNeverHoldsUpTheSharedConnection() throws Exception {
		RedisIdempotencyStore store = Runner.SHARED_LETTUCE.store(1, Duration.ofSeconds(10));
		RecordKey key = newKey();
		replica.freeze();
		CompletableFuture<Object> acquire = CompletableFuture.supplyAsync(() -> store.acquire(key, request("a")));
		await().atMost(DEADLINE).until(() -> onPrimary(key) != null);
		long started = System.nanoTime();
		try (RedisConnection connection = primaryFactory.getConnection()) {
			assertThat(connection.stringCommands().get(bytes(redisKey(key)))).isNotNull();
		}
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
		assertThat(acquire).isNotDone();
		replica.thaw();
		assertThat(acquire.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(new Acquired(1, false));
	}

	// Lettuce times commands out after the factory's command timeout too (as Boot sets
	// it up): a WAIT with a longer timeout must not be cut short, and reports too few
	// acknowledgements.
	@Test
	void ackTimeoutLongerThanTheFactoryTimeoutIsNotCutShort() {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofMillis(200))
			.clientOptions(ClientOptions.builder().timeoutOptions(TimeoutOptions.enabled()).build())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(servers.primary().host(), servers.primary().port()), client);
		factory.afterPropertiesSet();
		try {
			RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX, COMMAND_TIMEOUT,
					new ReplicaAcks(1, Duration.ofSeconds(1)));
			RecordKey key = newKey();
			replica.freeze();
			assertThatExceptionOfType(IdempotencyStoreException.class)
				.isThrownBy(() -> store.acquire(key, request("a")))
				.withMessageContaining("Only 0 of 1 Redis replicas acknowledged the claim");
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void storeDescriptionNamesTheAcknowledgements() {
		assertThat(Runner.SHARED_LETTUCE.store(1)).hasToString("Redis store at " + servers.primary().host() + ":"
				+ servers.primary().port() + " (key prefix '" + PREFIX + "', waits for 1 replica within 500 ms)");
		assertThat(Runner.SHARED_LETTUCE.store(0)).hasToString("Redis store at " + servers.primary().host() + ":"
				+ servers.primary().port() + " (key prefix '" + PREFIX + "')");
	}

	private static long waits() {
		try (RedisConnection connection = primaryFactory.getConnection()) {
			Properties stats = connection.serverCommands().info("commandstats");
			String wait = (stats != null) ? stats.getProperty("cmdstat_wait") : null;
			if (wait == null) {
				return 0;
			}
			String calls = wait.substring("calls=".length(), wait.indexOf(','));
			return Long.parseLong(calls);
		}
	}

	private static long replicationOffset() {
		try (RedisConnection connection = primaryFactory.getConnection()) {
			Properties replication = connection.serverCommands().info("replication");
			assertThat(replication).isNotNull();
			return Long.parseLong(replication.getProperty("master_repl_offset"));
		}
	}

	private static long expiresAt(RecordKey key) {
		try (RedisConnection connection = primaryFactory.getConnection()) {
			Long at = connection.scriptingCommands()
				.eval(bytes("return redis.call('PEXPIRETIME', KEYS[1])"), ReturnType.INTEGER, 1, bytes(redisKey(key)));
			assertThat(at).isPositive();
			return at;
		}
	}

	private static byte[] onPrimary(RecordKey key) {
		return get(primaryFactory, key);
	}

	private static byte[] onReplica(RecordKey key) {
		return get(replicaFactory, key);
	}

	private static byte[] get(LettuceConnectionFactory factory, RecordKey key) {
		try (RedisConnection connection = factory.getConnection()) {
			return connection.stringCommands().get(bytes(redisKey(key)));
		}
	}

	private static RecordKey newKey() {
		return new RecordKey("acks", UUID.randomUUID().toString());
	}

	private static String redisKey(RecordKey key) {
		return PREFIX + key.name() + ":" + key.key();
	}

	private static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, LEASE, RETENTION, null);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	enum Runner {

		SHARED_LETTUCE((factory, acks) -> new RedisIdempotencyStore(factory, PREFIX, COMMAND_TIMEOUT, acks)),

		CONNECTION_PER_SCRIPT((factory, acks) -> new RedisIdempotencyStore(connectionPerScriptFactory, PREFIX,
				new ConnectionScriptRunner(connectionPerScriptFactory, COMMAND_TIMEOUT), acks));

		private final BiFunction<LettuceConnectionFactory, ReplicaAcks, RedisIdempotencyStore> create;

		Runner(BiFunction<LettuceConnectionFactory, ReplicaAcks, RedisIdempotencyStore> create) {
			this.create = create;
		}

		RedisIdempotencyStore store(int replicas) {
			return store(replicas, ACK_TIMEOUT);
		}

		RedisIdempotencyStore store(int replicas, Duration timeout) {
			return this.create.apply(primaryFactory, new ReplicaAcks(replicas, timeout));
		}

	}

}
