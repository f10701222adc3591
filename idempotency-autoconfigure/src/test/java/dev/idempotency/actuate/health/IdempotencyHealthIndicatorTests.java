package dev.idempotency.actuate.health;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.RedisCluster;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link IdempotencyHealthIndicator}.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyHealthIndicatorTests {

	private static final String EVICTION_WARNING = "The idempotency store's Redis has maxmemory-policy";

	@Test
	void memoryStoreIsUp() {
		Health health = new IdempotencyHealthIndicator(new InMemoryIdempotencyStore()).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsExactly(entry("store", "memory"));
	}

	@Test
	void redisStoreIsUpAndTellsHowTheServerKeepsRecordsAndWhichScriptsAreLoaded() {
		withRedis((server, factory) -> {
			RedisIdempotencyStore store = new RedisIdempotencyStore(factory, "idempotency:");
			IdempotencyHealthIndicator indicator = new IdempotencyHealthIndicator(store);
			Health health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("store", "redis")
				.containsEntry("role", "master")
				.containsEntry("maxmemoryPolicy", "noeviction")
				.containsEntry("maxmemory", 0L)
				.containsKey("usedMemory")
				.doesNotContainKeys("reason", "warning");
			assertThat(health.getDetails().get("scripts"))
				.isEqualTo(Map.of("acquire", false, "complete", false, "release", false, "renew", false, "read", true));
			store.acquire(new RecordKey("Payments.charge", "a"),
					new AcquireRequest("owner", Duration.ofSeconds(30), Duration.ofMinutes(1), null));
			assertThat(indicator.health().getDetails().get("scripts"))
				.isEqualTo(Map.of("acquire", true, "complete", false, "release", false, "renew", false, "read", true));
		});
	}

	@Test
	void redisStoreIsDownWithTheCauseWhenTheServerIsStoppedAndUpWhenItIsBack() {
		withRedis((server, factory) -> {
			IdempotencyHealthIndicator indicator = new IdempotencyHealthIndicator(
					new RedisIdempotencyStore(factory, "idempotency:"));
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			server.stop();
			Health down = indicator.health();
			assertThat(down.getStatus()).isEqualTo(Status.DOWN);
			assertThat(down.getDetails()).containsEntry("store", "redis")
				.containsKeys("error", "cause")
				.doesNotContainKey("scripts");
			assertThat((String) down.getDetails().get("error")).startsWith("dev.idempotency.IdempotencyStoreException");
			server.restart();
			await().atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(indicator.health()).satisfies((health) -> {
					assertThat(health.getStatus()).isEqualTo(Status.UP);
					assertThat(health.getDetails()).containsKey("scripts");
				}));
		});
	}

	@Test
	void readOnlyReplicaIsDownWithTheReason() {
		withRedis((primary, primaryFactory) -> withRedis((replica, factory) -> {
			command(factory, "REPLICAOF", primary.host(), Integer.toString(primary.port()));
			Health health = new IdempotencyHealthIndicator(new RedisIdempotencyStore(factory, "idempotency:")).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("role", "replica")
				.containsEntry("reason", "Redis refuses writes: READONLY You can't write against a read only replica.")
				.doesNotContainKey("error");
		}));
	}

	@Test
	void writableReplicaIsDownBecauseItsRecordsNeverReachTheMaster() {
		withRedis((primary, primaryFactory) -> withRedis((replica, factory) -> {
			command(factory, "REPLICAOF", primary.host(), Integer.toString(primary.port()));
			command(factory, "CONFIG", "SET", "replica-read-only", "no");
			Health health = new IdempotencyHealthIndicator(new RedisIdempotencyStore(factory, "idempotency:")).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("role", "replica");
			assertThat((String) health.getDetails().get("reason")).startsWith("Redis is a replica: ");
		}));
	}

	@Test
	void redisAboveItsMaxmemoryUnderNoevictionIsDownWithTheReason() {
		withRedis((server, factory) -> {
			command(factory, "CONFIG", "SET", "maxmemory", "1");
			Health health = new IdempotencyHealthIndicator(new RedisIdempotencyStore(factory, "idempotency:")).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails()).containsEntry("role", "master")
				.containsEntry("maxmemoryPolicy", "noeviction")
				.containsEntry("maxmemory", 1L)
				.containsEntry("reason",
						"Redis refuses writes: OOM command not allowed when used memory > 'maxmemory'.");
		});
	}

	@Test
	void evictingPolicyIsUpWithAWarningDetailAndLoggedOnce(CapturedOutput output) {
		withRedis((server, factory) -> {
			command(factory, "CONFIG", "SET", "maxmemory", "100mb");
			command(factory, "CONFIG", "SET", "maxmemory-policy", "volatile-lru");
			IdempotencyHealthIndicator indicator = new IdempotencyHealthIndicator(
					new RedisIdempotencyStore(factory, "idempotency:"));
			Health health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("maxmemoryPolicy", "volatile-lru")
				.containsEntry("maxmemory", 100L * 1024 * 1024)
				.containsKey("warning");
			assertThat(output).contains(EVICTION_WARNING + " 'volatile-lru' with maxmemory 104857600 bytes");
			assertThat(indicator.health().getDetails()).containsKey("warning");
			assertThat(output.toString().split(EVICTION_WARNING, -1)).hasSize(2);
		});
	}

	@Test
	void settingsAreUnknownWhereInfoIsDenied(CapturedOutput output) {
		withRedis((server, factory) -> {
			command(factory, "ACL", "SETUSER", "no-info", "on", ">secret", "~*", "+@all", "-info");
			RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(server.host(), server.port());
			configuration.setUsername("no-info");
			configuration.setPassword("secret");
			LettuceConnectionFactory restricted = new LettuceConnectionFactory(configuration);
			restricted.afterPropertiesSet();
			restricted.start();
			try {
				Health health = new IdempotencyHealthIndicator(new RedisIdempotencyStore(restricted, "idempotency:"))
					.health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("role", "unknown")
					.containsEntry("maxmemoryPolicy", "unknown")
					.doesNotContainKeys("maxmemory", "usedMemory", "warning")
					.containsKey("scripts");
				assertThat(output).doesNotContain(EVICTION_WARNING);
			}
			finally {
				restricted.destroy();
			}
		});
	}

	@Test
	@SuppressWarnings("unchecked")
	void redisClusterIsUpWithTheDetailsOfEveryPrimary() {
		RedisCluster cluster = TestRedis.cluster();
		LettuceConnectionFactory factory = cluster.newConnectionFactory();
		try {
			Health health = new IdempotencyHealthIndicator(new RedisIdempotencyStore(factory, "idempotency:")).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsOnlyKeys("store", "primaries");
			Map<String, Map<String, Object>> primaries = (Map<String, Map<String, Object>>) health.getDetails()
				.get("primaries");
			assertThat(primaries).containsOnlyKeys(addresses(cluster.primaries()));
			assertThat(primaries.values()).allSatisfy((primary) -> {
				assertThat(primary).containsEntry("role", "master")
					.containsEntry("maxmemoryPolicy", "noeviction")
					.containsKeys("maxmemory", "usedMemory")
					.doesNotContainKeys("reason", "error");
				assertThat(primary.get("scripts")).isInstanceOf(Map.class);
			});
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	@SuppressWarnings("unchecked")
	void redisClusterIsDownWhenOnePrimaryRefusesWritesWithTheReasonOfThatPrimary() {
		RedisCluster cluster = TestRedis.cluster();
		LettuceConnectionFactory factory = cluster.newConnectionFactory();
		RedisServer refusing = cluster.primaries().get(1);
		LettuceConnectionFactory refusingFactory = TestRedis.connectionFactory(refusing.host(), refusing.port());
		command(refusingFactory, "CONFIG", "SET", "min-replicas-to-write", "2");
		try {
			Health health = new IdempotencyHealthIndicator(new RedisIdempotencyStore(factory, "idempotency:")).health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			String address = refusing.host() + ":" + refusing.port();
			assertThat((String) health.getDetails().get("reason"))
				.startsWith(address + ": Redis refuses writes: NOREPLICAS");
			Map<String, Map<String, Object>> primaries = (Map<String, Map<String, Object>>) health.getDetails()
				.get("primaries");
			assertThat((String) primaries.get(address).get("reason")).startsWith("Redis refuses writes: NOREPLICAS");
			assertThat(primaries.entrySet()).filteredOn((primary) -> !primary.getKey().equals(address))
				.hasSize(2)
				.allSatisfy((primary) -> assertThat(primary.getValue()).doesNotContainKey("reason"));
		}
		finally {
			command(refusingFactory, "CONFIG", "SET", "min-replicas-to-write", "0");
			refusingFactory.destroy();
			factory.destroy();
		}
	}

	private static List<String> addresses(List<RedisServer> nodes) {
		return nodes.stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

	private static void withRedis(BiConsumer<RedisServer, LettuceConnectionFactory> test) {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			try {
				test.accept(server, factory);
			}
			finally {
				factory.destroy();
			}
		}
	}

	private static void command(LettuceConnectionFactory factory, String command, String... args) {
		byte[][] bytes = new byte[args.length][];
		for (int i = 0; i < args.length; i++) {
			bytes[i] = args[i].getBytes(StandardCharsets.UTF_8);
		}
		try (RedisConnection connection = factory.getConnection()) {
			connection.execute(command, bytes);
		}
	}

}
