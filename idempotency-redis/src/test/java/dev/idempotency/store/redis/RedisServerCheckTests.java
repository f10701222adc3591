package dev.idempotency.store.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class RedisServerCheckTests {

	private static final String PREFIX = "idempotency:";

	private static final byte[] PROBE_KEY = bytes(PREFIX + "health-probe");

	@Test
	void primaryWithDefaultSettingsAcceptsWritesAndKeepsRecords() {
		withServer((server, factory) -> {
			RedisServerStatus status = new RedisIdempotencyStore(factory, PREFIX).serverCheck().check();
			assertThat(status.role()).isEqualTo("master");
			assertThat(status.acceptsWrites()).isTrue();
			assertThat(status.writeRefusal()).isNull();
			assertThat(status.isReplica()).isFalse();
			assertThat(status.maxmemoryPolicy()).isEqualTo("noeviction");
			assertThat(status.maxmemory()).isZero();
			assertThat(status.usedMemory()).isPositive();
			assertThat(status.evictsRecords()).isFalse();
		});
	}

	@Test
	void probeWritesUnderThePrefixAndLeavesNothingBehind() {
		withServer((server, factory) -> {
			new RedisIdempotencyStore(factory, PREFIX).serverCheck().check();
			try (RedisConnection connection = factory.getConnection()) {
				Properties stats = connection.serverCommands().info("commandstats");
				assertThat(stats.getProperty("cmdstat_set")).startsWith("calls=1,");
				assertThat(stats.getProperty("cmdstat_del")).startsWith("calls=1,");
				assertThat(connection.serverCommands().dbSize()).isZero();
			}
		});
	}

	@Test
	void probeNeverChangesAValueItDidNotCreate() {
		withServer((server, factory) -> {
			try (RedisConnection connection = factory.getConnection()) {
				connection.stringCommands().set(PROBE_KEY, bytes("someone else's"));
				assertThat(new RedisIdempotencyStore(factory, PREFIX).serverCheck().check().acceptsWrites()).isTrue();
				assertThat(connection.stringCommands().get(PROBE_KEY)).isEqualTo(bytes("someone else's"));
			}
		});
	}

	@Test
	void readOnlyReplicaRefusesWrites() {
		withServer((primary, primaryFactory) -> withServer((replica, factory) -> {
			replicate(factory, primary);
			RedisServerStatus status = new RedisIdempotencyStore(factory, PREFIX).serverCheck().check();
			assertThat(status.role()).isEqualTo("replica");
			assertThat(status.isReplica()).isTrue();
			assertThat(status.acceptsWrites()).isFalse();
			assertThat(status.writeRefusal()).startsWith("READONLY ");
		}));
	}

	@Test
	void writableReplicaAcceptsWritesAndIsStillAReplica() {
		withServer((primary, primaryFactory) -> withServer((replica, factory) -> {
			replicate(factory, primary);
			setConfig(factory, "replica-read-only", "no");
			RedisServerStatus status = new RedisIdempotencyStore(factory, PREFIX).serverCheck().check();
			assertThat(status.acceptsWrites()).isTrue();
			assertThat(status.isReplica()).isTrue();
			try (RedisConnection connection = factory.getConnection()) {
				assertThat(connection.keyCommands().exists(PROBE_KEY)).isFalse();
			}
		}));
	}

	@Test
	void fullServerUnderNoevictionRefusesWritesAndEvictingOneAcceptsThem() {
		withServer((server, factory) -> {
			long maxmemory = fillToTheLimit(factory);
			RedisServerCheck check = new RedisIdempotencyStore(factory, PREFIX).serverCheck();
			RedisServerStatus full = check.check();
			assertThat(full.acceptsWrites()).isFalse();
			assertThat(full.writeRefusal()).startsWith("OOM ");
			assertThat(full.maxmemory()).isEqualTo(maxmemory);
			assertThat(full.maxmemoryPolicy()).isEqualTo("noeviction");
			assertThat(full.evictsRecords()).isFalse();
			setConfig(factory, "maxmemory-policy", "allkeys-lru");
			RedisServerStatus evicting = check.check();
			assertThat(evicting.acceptsWrites()).isTrue();
			assertThat(evicting.evictsRecords()).isTrue();
		});
	}

	@Test
	void volatilePoliciesEvictRecordsOnlyUnderAMemoryLimit() {
		withServer((server, factory) -> {
			RedisServerCheck check = new RedisIdempotencyStore(factory, PREFIX).serverCheck();
			setConfig(factory, "maxmemory-policy", "volatile-lru");
			RedisServerStatus unlimited = check.check();
			assertThat(unlimited.maxmemoryPolicy()).isEqualTo("volatile-lru");
			assertThat(unlimited.evictsRecords()).isFalse();
			setConfig(factory, "maxmemory", "100mb");
			RedisServerStatus limited = check.check();
			assertThat(limited.maxmemory()).isEqualTo(100L * 1024 * 1024);
			assertThat(limited.evictsRecords()).isTrue();
			assertThat(limited.acceptsWrites()).isTrue();
		});
	}

	@Test
	void primaryWithoutEnoughReplicasRefusesWrites() {
		withServer((server, factory) -> {
			setConfig(factory, "min-replicas-to-write", "1");
			RedisServerStatus status = new RedisIdempotencyStore(factory, PREFIX).serverCheck().check();
			assertThat(status.role()).isEqualTo("master");
			assertThat(status.writeRefusal()).startsWith("NOREPLICAS ");
		});
	}

	@Test
	void primaryWhoseBackgroundSaveFailedRefusesWrites() {
		withServer((server, factory) -> {
			try (RedisConnection connection = factory.getConnection()) {
				// Snapshots then fail to create their file, as on a full or broken disk.
				deleteDirectory(Path.of(connection.serverCommands().getConfig("dir").getProperty("dir")));
				setConfig(factory, "save", "3600 1");
				connection.serverCommands().bgSave();
				await().until(() -> "err"
					.equals(connection.serverCommands().info("persistence").getProperty("rdb_last_bgsave_status")));
			}
			assertThat(new RedisIdempotencyStore(factory, PREFIX).serverCheck().check().writeRefusal())
				.startsWith("MISCONF ");
			// Redis would refuse to stop while it cannot save.
			setConfig(factory, "save", "");
		});
	}

	@Test
	void settingsAreUnknownAndWritesStillCheckedWhereInfoIsDenied() {
		withServer((server, factory) -> {
			try (RedisConnection connection = factory.getConnection()) {
				connection.execute("ACL", bytes("SETUSER"), bytes("no-info"), bytes("on"), bytes(">secret"),
						bytes("~*"), bytes("+@all"), bytes("-info"));
			}
			setConfig(factory, "min-replicas-to-write", "1");
			RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(server.host(), server.port());
			configuration.setUsername("no-info");
			configuration.setPassword("secret");
			LettuceConnectionFactory restricted = new LettuceConnectionFactory(configuration);
			restricted.afterPropertiesSet();
			restricted.start();
			try {
				RedisServerStatus status = new RedisIdempotencyStore(restricted, PREFIX).serverCheck().check();
				assertThat(status).isEqualTo(
						new RedisServerStatus(null, "NOREPLICAS Not enough good replicas to write.", null, null, null));
				assertThat(status.evictsRecords()).isFalse();
			}
			finally {
				restricted.destroy();
			}
		});
	}

	@Test
	void unreachableServerFailsWithAStoreException() {
		withServer((server, factory) -> {
			server.stop();
			assertThatExceptionOfType(IdempotencyStoreException.class)
				.isThrownBy(() -> new RedisIdempotencyStore(factory, PREFIX).serverCheck().check())
				.withMessageContaining("'idempotency:health-probe'");
		});
	}

	private static void withServer(ServerTest test) {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			try {
				test.run(server, factory);
			}
			finally {
				factory.destroy();
			}
		}
	}

	private static void replicate(LettuceConnectionFactory factory, RedisServer primary) {
		try (RedisConnection connection = factory.getConnection()) {
			connection.serverCommands().replicaOf(primary.host(), primary.port());
		}
	}

	private static void setConfig(LettuceConnectionFactory factory, String name, String value) {
		try (RedisConnection connection = factory.getConnection()) {
			connection.serverCommands().setConfig(name, value);
		}
	}

	// Sets maxmemory a little above what the server uses, then writes until it refuses.
	private static long fillToTheLimit(LettuceConnectionFactory factory) {
		try (RedisConnection connection = factory.getConnection()) {
			long used = Long.parseLong(connection.serverCommands().info("memory").getProperty("used_memory"));
			long maxmemory = used + 256 * 1024;
			setConfig(factory, "maxmemory", Long.toString(maxmemory));
			// Small values, so that the last one refused leaves less room than any write
			// needs.
			byte[] value = new byte[64];
			for (int i = 0; i < 100_000; i++) {
				try {
					connection.stringCommands().set(bytes("filler:" + i), value);
				}
				catch (DataAccessException ex) {
					assertThat(ex).hasStackTraceContaining("OOM");
					return maxmemory;
				}
			}
			throw new AssertionError("Redis accepted 100,000 writes under a maxmemory of " + maxmemory);
		}
	}

	private static void deleteDirectory(Path directory) {
		// The server's own temporary directory, never anything else of this machine.
		assertThat(directory.toAbsolutePath().normalize())
			.startsWith(Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath())
			.hasFileName(directory.getFileName().toString())
			.satisfies((path) -> assertThat(path.getFileName().toString()).startsWith("redis-server-"));
		try (Stream<Path> paths = Files.walk(directory)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		assertThat(directory).doesNotExist();
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	@FunctionalInterface
	private interface ServerTest {

		void run(RedisServer server, LettuceConnectionFactory factory);

	}

}
