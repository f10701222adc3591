package dev.idempotency.store.redis;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisConnectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.entry;

/**
 * What the Redis store does beyond the store contract (which
 * {@code RedisIdempotencyStoreContractTests} of {@code idempotency-test} runs): its
 * layout in Redis, foreign values, failures of the server and of the connection, and how
 * scripts are sent.
 */
class RedisIdempotencyStoreTests {

	private static final String PREFIX = "idempotency-test:";

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	private final IdempotencyStore store = new RedisIdempotencyStore(TestRedis.get().connectionFactory(), PREFIX);

	@Test
	void typeIsRedis() {
		assertThat(this.store.type()).isEqualTo("redis");
	}

	@Test
	void recordIsOneStringUnderPrefixNameAndKey() {
		RecordKey key = newKey();
		this.store.acquire(key, request("a"));
		withConnection((connection) -> {
			assertThat(connection.keyCommands().type(redisKey(key)).code()).isEqualTo("string");
			assertThat(connection.keyCommands().pTtl(redisKey(key))).isGreaterThan(RETENTION.toMillis() - 5000);
		});
	}

	@Test
	void keysOfEveryAlphabetAndOperationsInTurnAreStoredUnderTheirUtf8Keys() {
		RecordKey first = newKey();
		RecordKey other = new RecordKey("other-" + first.name(), first.key());
		RecordKey accented = new RecordKey(first.name(), "clé-ü-" + first.key());
		RecordKey emoji = new RecordKey("\uD83D\uDE00" + first.name(), "\uD83D\uDE00" + first.key());
		for (RecordKey key : List.of(first, other, accented, first, emoji, other)) {
			this.store.acquire(key, request("a"));
			withConnection(
					(connection) -> assertThat(connection.keyCommands().type(redisKey(key)).code()).as(key.toString())
						.isEqualTo("string"));
		}
	}

	@Test
	void listUnderKeyIsNotARecord() {
		RecordKey key = newKey();
		withConnection((connection) -> connection.listCommands().lPush(redisKey(key), bytes("x")));
		assertNotARecord(key);
	}

	@Test
	void garbageStringUnderKeyIsNotARecord() {
		RecordKey key = newKey();
		withConnection((connection) -> connection.stringCommands().set(redisKey(key), bytes("hello, not a record")));
		assertNotARecord(key);
	}

	@Test
	void emptyStringUnderKeyIsNotARecord() {
		RecordKey key = newKey();
		withConnection((connection) -> connection.stringCommands().set(redisKey(key), new byte[0]));
		assertNotARecord(key);
	}

	@Test
	void truncatedRecordIsNotARecord() {
		RecordKey key = newKey();
		this.store.acquire(key, request("a"));
		this.store.complete(key, "a", 1, StoredResult.of(new byte[100]), RETENTION);
		withConnection((connection) -> {
			byte[] record = connection.stringCommands().get(redisKey(key));
			connection.stringCommands().set(redisKey(key), Arrays.copyOf(record, record.length - 10));
		});
		assertNotARecord(key);
	}

	@Test
	void recordWithTrailingBytesIsNotARecord() {
		RecordKey key = newKey();
		this.store.acquire(key, request("a"));
		withConnection((connection) -> connection.stringCommands().append(redisKey(key), new byte[] { 1 }));
		assertNotARecord(key);
	}

	@Test
	void foreignValueIsLeftUntouchedAndCanBeEvicted() {
		RecordKey key = newKey();
		withConnection((connection) -> connection.stringCommands().set(redisKey(key), bytes("foreign")));
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.acquire(key, request("a")));
		withConnection(
				(connection) -> assertThat(connection.stringCommands().get(redisKey(key))).isEqualTo(bytes("foreign")));
		assertThat(this.store.evict(key)).isTrue();
		assertThat(this.store.acquire(key, request("a"))).isEqualTo(new Acquired(1, false));
	}

	@Test
	void everyTransitionOnClosedPortIsStoreException() throws IOException {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		LettuceConnectionFactory factory = TestRedis.connectionFactory("127.0.0.1", closedPort);
		try {
			assertEveryTransitionFails(new RedisIdempotencyStore(factory, PREFIX));
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void everyTransitionOnStoppedServerIsStoreExceptionAndWorksAgainAfterRestart() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			try {
				RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX);
				RecordKey key = newKey();
				assertThat(store.acquire(key, request("a"))).isEqualTo(new Acquired(1, false));
				server.stop();
				assertEveryTransitionFails(store);
				server.restart();
				AcquireResult result = pollWhileFailing(() -> store.acquire(key, request("a")));
				assertThat(result).isEqualTo(new Acquired(1, false));
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void scriptsRunOnTheConnectionTheFactoryShares() {
		assertThat(ScriptRunner.of(TestRedis.get().connectionFactory(), RedisIdempotencyStore.DEFAULT_COMMAND_TIMEOUT))
			.isInstanceOf(LettuceScriptRunner.class);
	}

	@Test
	void aLettuceFactoryThatSharesNoConnectionStillGetsOneConnectionOfTheStoresOwn() {
		LettuceConnectionFactory factory = TestRedis.get().newConnectionFactory();
		try {
			factory.setShareNativeConnection(false);
			assertThat(ScriptRunner.of(factory, RedisIdempotencyStore.DEFAULT_COMMAND_TIMEOUT))
				.isInstanceOf(LettuceScriptRunner.class);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void transitionsFollowTheFactoryWhenItResetsItsSharedConnection() {
		LettuceConnectionFactory factory = TestRedis.get().newConnectionFactory();
		try {
			RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX);
			RecordKey key = newKey();
			assertThat(store.acquire(key, request("a"))).isEqualTo(new Acquired(1, false));
			factory.resetConnection();
			assertThat(store.complete(key, "a", 1, StoredResult.of(bytes("x")), RETENTION)).isTrue();
			factory.stop();
			assertStoreFailure(() -> store.acquire(key, request("b")));
			factory.start();
			assertThat(((Completed) store.acquire(key, request("b"))).result().body()).isEqualTo(bytes("x"));
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void steadyStateRunsEachScriptBySha() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			try {
				RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX);
				for (int i = 0; i < 5; i++) {
					RecordKey key = newKey();
					store.acquire(key, request("a"));
					store.complete(key, "a", 1, StoredResult.of(bytes("x")), RETENTION);
				}
				try (RedisConnection connection = factory.getConnection()) {
					Properties stats = connection.serverCommands().info("commandstats");
					assertThat(calls(stats, "eval")).isEqualTo(2);
					assertThat(calls(stats, "evalsha")).isGreaterThanOrEqualTo(8);
				}
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void scriptsAreReportedLoadedOnceTheyHaveRun() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			try {
				RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX);
				assertThat(store.scriptsLoaded()).containsExactly(entry("acquire", false), entry("complete", false),
						entry("release", false), entry("renew", false), entry("read", false));
				RecordKey key = newKey();
				store.acquire(key, request("a"));
				store.read(key);
				assertThat(store.scriptsLoaded()).containsExactly(entry("acquire", true), entry("complete", false),
						entry("release", false), entry("renew", false), entry("read", true));
				server.stop();
				assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(store::scriptsLoaded);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void transitionsStayOutOfTheCallersRedisTransaction() {
		RedisConnectionFactory factory = TestRedis.get().connectionFactory();
		RedisConnection bound = RedisConnectionUtils.bindConnection(factory);
		try {
			bound.multi();
			RecordKey key = newKey();
			assertThat(this.store.acquire(key, request("a"))).isEqualTo(new Acquired(1, false));
			assertThat(this.store.complete(key, "a", 1, StoredResult.of(bytes("x")), RETENTION)).isTrue();
			assertThat(this.store.read(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
			bound.discard();
		}
		finally {
			RedisConnectionUtils.unbindConnection(factory);
		}
	}

	@Test
	void keysWithSpecialCharactersAndUnicodeAreKeptApart() {
		RecordKey key = new RecordKey("Payments.charge ✓", "a b:c*?[x]{y}\"'\\\n\t €-漢字-🎉-" + UUID.randomUUID());
		RecordKey similar = new RecordKey("Payments.charge ✓", "a b:c*?[x]{y}\"'\\\n\t €-漢字-🎉-" + UUID.randomUUID());
		assertThat(this.store.acquire(key, request("a"))).isEqualTo(new Acquired(1, false));
		assertThat(this.store.complete(key, "a", 1, StoredResult.of(bytes("ü")), RETENTION)).isTrue();
		assertThat(((Completed) this.store.acquire(key, request("b"))).result().body()).isEqualTo(bytes("ü"));
		assertThat(this.store.acquire(similar, request("b"))).isEqualTo(new Acquired(1, false));
		assertThat(this.store.read(key).orElseThrow().key()).isEqualTo(key);
		withConnection((connection) -> assertThat(connection.keyCommands().exists(redisKey(key))).isTrue());
		assertThat(this.store.evict(key)).isTrue();
	}

	@Test
	void completedRecordIsSmall() {
		RedisIdempotencyStore store = new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency:");
		String owner = UUID.randomUUID().toString();
		RecordKey key = new RecordKey("pay", UUID.randomUUID().toString().substring(0, 23));
		byte[] redisKey = bytes("idempotency:" + key.name() + ":" + key.key());
		store.acquire(key, new AcquireRequest(owner, LEASE, Duration.ofHours(24), null));
		store.complete(key, owner, 1, StoredResult.of(new byte[200]), Duration.ofHours(24));
		RecordKey withFingerprint = new RecordKey("pay", UUID.randomUUID().toString().substring(0, 23));
		store.acquire(withFingerprint, new AcquireRequest(owner, LEASE, Duration.ofHours(24), new byte[32]));
		store.complete(withFingerprint, owner, 1, StoredResult.of(new byte[200]), Duration.ofHours(24));
		withConnection((connection) -> {
			long usage = memoryUsage(connection, redisKey);
			long usageWithFingerprint = memoryUsage(connection,
					bytes("idempotency:" + withFingerprint.name() + ":" + withFingerprint.key()));
			System.out.printf(
					"MEMORY USAGE of a completed record, %d-char key, 36-char owner, 200-byte body: "
							+ "%d bytes (value %d bytes); with a 32-byte fingerprint: %d bytes%n",
					redisKey.length, usage, connection.stringCommands().strLen(redisKey), usageWithFingerprint);
			assertThat(usage).isLessThan(450);
		});
		store.evict(key);
		store.evict(withFingerprint);
	}

	@Test
	void readOfRecordWithoutExpiryHasNoExpiry() {
		RecordKey key = newKey();
		this.store.acquire(key, request("a"));
		withConnection((connection) -> connection.keyCommands().persist(redisKey(key)));
		assertThat(this.store.read(key).orElseThrow().expiresAt()).isNull();
		assertThat(this.store.read(key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
	}

	private void assertNotARecord(RecordKey key) {
		String message = "Value under Redis key '" + PREFIX + key.name() + ":" + key.key()
				+ "' is not an idempotency record";
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.acquire(key, request("a")))
			.withMessageContaining(message)
			.withCauseInstanceOf(RuntimeException.class);
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.complete(key, "a", 1, StoredResult.of(bytes("x")), RETENTION))
			.withMessageContaining(message);
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.release(key, "a", 1, RETENTION))
			.withMessageContaining(message);
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.renew(key, "a", 1, LEASE, RETENTION))
			.withMessageContaining(message);
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> this.store.read(key))
			.withMessageContaining(message);
	}

	private static void assertEveryTransitionFails(RedisIdempotencyStore store) {
		RecordKey key = newKey();
		assertStoreFailure(() -> store.acquire(key, request("a")));
		assertStoreFailure(() -> store.complete(key, "a", 1, StoredResult.of(bytes("x")), RETENTION));
		assertStoreFailure(() -> store.release(key, "a", 1, RETENTION));
		assertStoreFailure(() -> store.renew(key, "a", 1, LEASE, RETENTION));
		assertStoreFailure(() -> store.read(key));
		assertStoreFailure(() -> store.evict(key));
	}

	private static void assertStoreFailure(Runnable transition) {
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(transition::run)
			.withMessageStartingWith("Redis failed to ")
			.withCauseInstanceOf(RuntimeException.class);
	}

	private static <T> T pollWhileFailing(Supplier<T> action) {
		AtomicReference<T> result = new AtomicReference<>();
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(20))
			.ignoreException(IdempotencyStoreException.class)
			.until(() -> {
				result.set(action.get());
				return true;
			});
		return result.get();
	}

	private static long calls(Properties commandStats, String command) {
		String stats = commandStats.getProperty("cmdstat_" + command);
		assertThat(stats).as("stats of %s", command).startsWith("calls=");
		return Long.parseLong(stats.substring("calls=".length(), stats.indexOf(',')));
	}

	private static long memoryUsage(RedisConnection connection, byte[] key) {
		// A script, since the generic execute expects a bulk reply and MEMORY USAGE
		// answers
		// with an integer.
		Long usage = connection.scriptingCommands()
			.eval(bytes("return redis.call('MEMORY', 'USAGE', KEYS[1])"), ReturnType.INTEGER, 1, key);
		assertThat(usage).isNotNull();
		return usage;
	}

	private static void withConnection(Consumer<RedisConnection> action) {
		RedisConnectionFactory factory = TestRedis.get().connectionFactory();
		try (RedisConnection connection = factory.getConnection()) {
			action.accept(connection);
		}
	}

	private static byte[] redisKey(RecordKey key) {
		return bytes(PREFIX + key.name() + ":" + key.key());
	}

	private static RecordKey newKey() {
		return new RecordKey("contract", UUID.randomUUID().toString());
	}

	private static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, LEASE, RETENTION, null);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
