package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Function;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.AcquireResult.KeyReused;
import dev.idempotency.store.BatchAcquire;
import dev.idempotency.store.BatchAcquireException;
import dev.idempotency.store.BatchComplete;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import dev.idempotency.test.redis.RedisSentinels;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Batches on one server run in one script call per {@link BatchCalls#MAX_ITEMS} items,
 * each item answered as the single-key script would answer it; counted on a server of the
 * tests' own, from its command statistics.
 */
class RedisBatchScriptTests {

	private static final String PREFIX = "idempotency-batch:";

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	private static RedisServer server;

	private static LettuceConnectionFactory factory;

	private final RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX);

	@BeforeAll
	static void startServer() {
		server = TestRedis.startPrivateServer();
		factory = TestRedis.connectionFactory(server.host(), server.port());
		warmUp(new RedisIdempotencyStore(factory, PREFIX));
	}

	// Has the server cache every script of batches and single calls, so that the calls
	// counted are not sent twice for NOSCRIPT
	private static void warmUp(RedisIdempotencyStore store) {
		List<RecordKey> keys = newKeys(2);
		store.acquireAll(keys.stream().map((key) -> new BatchAcquire(key, request("a"))).toList());
		store.completeAll(keys.stream()
			.map((key) -> new BatchComplete(key, "a", 1, StoredResult.of(bytes("done")), RETENTION))
			.toList());
		store.acquire(newKey(), request("a"));
	}

	@AfterAll
	static void stopServer() {
		factory.destroy();
		server.close();
	}

	@Test
	void batchIsAcquiredInOneScriptCallAndCompletedInOneWithEachItemAnsweredAsAlone() {
		RecordKey completed = newKey();
		RecordKey inProgress = newKey();
		RecordKey reused = newKey();
		RecordKey mine = newKey();
		this.store.acquire(completed, request("earlier"));
		this.store.complete(completed, "earlier", 1, StoredResult.of(bytes("stored")), RETENTION);
		this.store.acquire(inProgress, request("other"));
		this.store.acquire(reused, new AcquireRequest("other", LEASE, RETENTION, bytes("fingerprint-a")));
		this.store.acquire(mine, request("a"));
		List<RecordKey> fresh = newKeys(50);
		List<BatchAcquire> batch = new ArrayList<>();
		fresh.forEach((key) -> batch.add(new BatchAcquire(key, request("a"))));
		batch.add(new BatchAcquire(completed, request("a")));
		batch.add(new BatchAcquire(inProgress, request("a")));
		batch.add(new BatchAcquire(reused, new AcquireRequest("a", LEASE, RETENTION, bytes("fingerprint-b"))));
		batch.add(new BatchAcquire(mine, request("a")));
		batch.add(new BatchAcquire(fresh.get(0), request("b")));
		long before = evalshaCalls();
		List<AcquireResult> results = this.store.acquireAll(batch);
		assertThat(evalshaCalls() - before).isOne();
		assertThat(results.subList(0, 50)).containsOnly(new Acquired(1, false));
		assertThat(((Completed) results.get(50)).result().body()).isEqualTo(bytes("stored"));
		assertThat(results.get(51)).isInstanceOf(InProgress.class);
		assertThat(results.get(52)).isEqualTo(new KeyReused());
		assertThat(results.get(53)).isEqualTo(new Acquired(1, false));
		assertThat(((InProgress) results.get(54)).leaseRemaining()).isPositive().isLessThanOrEqualTo(LEASE);
		List<BatchComplete> completions = new ArrayList<>();
		fresh.forEach(
				(key) -> completions.add(new BatchComplete(key, "a", 1, StoredResult.of(bytes(key.key())), RETENTION)));
		completions.add(new BatchComplete(inProgress, "a", 1, StoredResult.of(bytes("lost")), RETENTION));
		before = evalshaCalls();
		List<Boolean> done = this.store.completeAll(completions);
		assertThat(evalshaCalls() - before).isOne();
		assertThat(done.subList(0, 50)).containsOnly(true);
		assertThat(done.get(50)).isFalse();
		for (RecordKey key : fresh) {
			assertThat(((Completed) this.store.acquire(key, request("c"))).result().body()).isEqualTo(bytes(key.key()));
		}
		assertThat(this.store.read(inProgress).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
	}

	@Test
	void valueThatIsNotARecordInTheMiddleOfAOneScriptBatchFailsAloneAndIsLeftUntouched() {
		RecordKey before = newKey();
		RecordKey corrupt = newKey();
		RecordKey after = newKey();
		set(corrupt, bytes("not a record"));
		String message = "Value under Redis key '" + PREFIX + corrupt.name() + ":" + corrupt.key()
				+ "' is not an idempotency record";
		long calls = evalshaCalls();
		BatchAcquireException acquireFailure = catchBatchFailure(
				() -> this.store.acquireAll(List.of(new BatchAcquire(before, request("a")),
						new BatchAcquire(corrupt, request("a")), new BatchAcquire(after, request("a")))));
		assertThat(evalshaCalls() - calls).isOne();
		assertThat(acquireFailure).hasMessageContaining(message);
		assertThat(acquireFailure.getCause()).hasMessageStartingWith(RedisErrors.CORRUPT);
		assertThat(acquireFailure.results()).containsExactly(new Acquired(1, false), null, new Acquired(1, false));
		assertThat(get(corrupt)).isEqualTo(bytes("not a record"));
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(
					() -> this.store.completeAll(List.of(completion(before), completion(corrupt), completion(after))))
			.withMessageContaining(message);
		assertThat(get(corrupt)).isEqualTo(bytes("not a record"));
		assertThat(this.store.read(before).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
		assertThat(this.store.read(after).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
		assertThat(this.store.evict(corrupt)).isTrue();
	}

	// A full Redis under noeviction refuses new records and keeps replaying completed
	// ones
	// (docs/stores.md): the refused write of one item of a script call must not take the
	// replies of the others with it, or a completed key would run again unprotected
	@Test
	void writeRedisRefusesFailsItsOwnItemOnlyAndTheOthersInTheCallAreStillReplayed() {
		RecordKey completed = newKey();
		RecordKey fresh = newKey();
		RecordKey alsoCompleted = newKey();
		for (RecordKey key : List.of(completed, alsoCompleted)) {
			this.store.acquire(key, request("earlier"));
			this.store.complete(key, "earlier", 1, StoredResult.of(bytes("stored")), RETENTION);
		}
		configSet("maxmemory", "1");
		BatchAcquireException failure;
		try {
			long calls = evalshaCalls();
			failure = catchBatchFailure(() -> this.store.acquireAll(List.of(new BatchAcquire(completed, request("a")),
					new BatchAcquire(fresh, request("a")), new BatchAcquire(alsoCompleted, request("a")))));
			assertThat(evalshaCalls() - calls).isOne();
		}
		finally {
			configSet("maxmemory", "0");
		}
		assertThat(failure).hasMessage("Redis failed to acquire the idempotency record under key '" + PREFIX
				+ fresh.name() + ":" + fresh.key() + "'");
		assertThat(failure.getCause()).hasMessageStartingWith("OOM ");
		assertThat(failure.results()).hasSize(3);
		assertThat(((Completed) failure.results().get(0)).result().body()).isEqualTo(bytes("stored"));
		assertThat(failure.results().get(1)).isNull();
		assertThat(((Completed) failure.results().get(2)).result().body()).isEqualTo(bytes("stored"));
		assertThat(this.store.read(fresh)).isEmpty();
	}

	// A script holds Redis, every other client of it included, until it ends: results as
	// large as max-result-size allows (1 MB by default) must not make one call of 256
	// items hold it for seconds, where the items sent one by one let others in between
	@Test
	void callOfLargeResultsHoldsRedisNoLongerThanASingleCallOfThemWould() {
		List<RecordKey> keys = newKeys(24);
		this.store.acquireAll(keys.stream().map((key) -> new BatchAcquire(key, request("a"))).toList());
		byte[] body = new byte[1024 * 1024];
		List<BatchComplete> completions = keys.stream()
			.map((key) -> new BatchComplete(key, "a", 1, StoredResult.of(body), RETENTION))
			.toList();
		configSet("slowlog-log-slower-than", "100000");
		try {
			slowlog(true);
			assertThat(this.store.completeAll(completions)).containsOnly(true);
			assertThat(slowlog(false)).as("commands that held Redis for 100 ms or more").isZero();
			List<AcquireResult> replays = this.store
				.acquireAll(keys.stream().map((key) -> new BatchAcquire(key, request("b"))).toList());
			assertThat(slowlog(false)).as("commands that held Redis for 100 ms or more").isZero();
			assertThat(replays).hasSize(keys.size())
				.allSatisfy((replay) -> assertThat(((Completed) replay).result().body()).isEqualTo(body));
		}
		finally {
			configSet("slowlog-log-slower-than", "10000");
			keys.forEach(this.store::evict);
		}
	}

	@Test
	void batchLargerThanOneScriptCallTakesIsSplit() {
		List<RecordKey> keys = newKeys(2 * BatchCalls.MAX_ITEMS + 1);
		long before = evalshaCalls();
		List<AcquireResult> results = this.store
			.acquireAll(keys.stream().map((key) -> new BatchAcquire(key, request("a"))).toList());
		assertThat(evalshaCalls() - before).isEqualTo(3);
		assertThat(results).hasSize(keys.size()).containsOnly(new Acquired(1, false));
		before = evalshaCalls();
		assertThat(this.store.completeAll(keys.stream().map(this::completion).toList())).hasSize(keys.size())
			.containsOnly(true);
		assertThat(evalshaCalls() - before).isEqualTo(3);
		assertThat(this.store.acquireAll(keys.stream().map((key) -> new BatchAcquire(key, request("b"))).toList()))
			.allMatch(Completed.class::isInstance);
	}

	@Test
	void batchThroughSentinelIsOneScriptCallOnThePrimaryAndOneCallPerItemWithReplicaAcks() {
		try (RedisSentinels sentinels = TestRedis.startSentinels()) {
			LettuceConnectionFactory sentinelFactory = sentinels.newConnectionFactory();
			try {
				RedisIdempotencyStore batches = new RedisIdempotencyStore(sentinelFactory, PREFIX);
				RedisIdempotencyStore acknowledged = new RedisIdempotencyStore(sentinelFactory, PREFIX,
						RedisIdempotencyStore.DEFAULT_COMMAND_TIMEOUT, new ReplicaAcks(1, Duration.ofSeconds(5)));
				RedisServer primary = sentinels.primary();
				warmUp(batches);
				warmUp(acknowledged);
				List<RecordKey> keys = newKeys(10);
				long before = evalshaCalls(primary);
				assertThat(batches.acquireAll(keys.stream().map((key) -> new BatchAcquire(key, request("a"))).toList()))
					.containsOnly(new Acquired(1, false));
				assertThat(evalshaCalls(primary) - before).isOne();
				List<RecordKey> others = newKeys(10);
				before = evalshaCalls(primary);
				assertThat(acknowledged
					.acquireAll(others.stream().map((key) -> new BatchAcquire(key, request("a"))).toList()))
					.containsOnly(new Acquired(1, false));
				assertThat(evalshaCalls(primary) - before).isEqualTo(10);
			}
			finally {
				sentinelFactory.destroy();
			}
		}
	}

	private BatchComplete completion(RecordKey key) {
		return new BatchComplete(key, "a", 1, StoredResult.of(bytes("done")), RETENTION);
	}

	private static BatchAcquireException catchBatchFailure(Runnable batch) {
		try {
			batch.run();
		}
		catch (BatchAcquireException ex) {
			return ex;
		}
		throw new AssertionError("Expected a BatchAcquireException");
	}

	private static long evalshaCalls() {
		return withConnection(factory, RedisBatchScriptTests::evalshaCalls);
	}

	private static long evalshaCalls(RedisServer node) {
		LettuceConnectionFactory nodeFactory = TestRedis.connectionFactory(node.host(), node.port());
		try {
			return withConnection(nodeFactory, RedisBatchScriptTests::evalshaCalls);
		}
		finally {
			nodeFactory.destroy();
		}
	}

	// Scripts sent in full (EVAL) are counted too: none is, once the server has the
	// scripts, and a batch sent again after NOSCRIPT is another call
	private static long evalshaCalls(RedisConnection connection) {
		Properties stats = connection.serverCommands().info("commandstats");
		assertThat(stats).isNotNull();
		return calls(stats.getProperty("cmdstat_evalsha")) + calls(stats.getProperty("cmdstat_eval"));
	}

	// "calls=3,usec=…" of INFO commandstats
	private static long calls(String stat) {
		if (stat == null) {
			return 0;
		}
		String calls = stat.substring(stat.indexOf("calls=") + "calls=".length());
		return Long.parseLong(calls.substring(0, calls.indexOf(',')));
	}

	private static <T> T withConnection(LettuceConnectionFactory connections, Function<RedisConnection, T> action) {
		try (RedisConnection connection = connections.getConnection()) {
			return action.apply(connection);
		}
	}

	private static long slowlog(boolean reset) {
		RedisClient client = RedisClient.create(RedisURI.create(server.host(), server.port()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			if (reset) {
				connection.sync().slowlogReset();
			}
			return connection.sync().slowlogLen();
		}
		finally {
			client.shutdown();
		}
	}

	private static void configSet(String parameter, String value) {
		withConnection(factory, (connection) -> {
			connection.serverCommands().setConfig(parameter, value);
			return null;
		});
	}

	private void set(RecordKey key, byte[] value) {
		withConnection(factory, (connection) -> connection.stringCommands().set(redisKey(key), value));
	}

	private byte[] get(RecordKey key) {
		return withConnection(factory, (connection) -> connection.stringCommands().get(redisKey(key)));
	}

	private static byte[] redisKey(RecordKey key) {
		return bytes(PREFIX + key.name() + ":" + key.key());
	}

	private static List<RecordKey> newKeys(int count) {
		List<RecordKey> keys = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			keys.add(newKey());
		}
		return keys;
	}

	private static RecordKey newKey() {
		return new RecordKey("batch", UUID.randomUUID().toString());
	}

	private static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, LEASE, RETENTION, null);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
