package dev.idempotency.test.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RedisSentinelsTests {

	private final RedisClient client = RedisClient.create();

	@AfterEach
	void shutdownClient() {
		this.client.shutdown();
	}

	@Test
	void sentinelsReportThePrimaryAndItsReplicaAndTheFactoryWritesToThePrimary() {
		try (RedisSentinels sentinels = TestRedis.startSentinels()) {
			RedisServer primary = sentinels.primary();
			RedisServer replica = sentinels.replica();
			assertThat(replica).isNotSameAs(primary);
			assertThat(RedisAdmin.parse(commands(replica).info("replication"))).containsEntry("role", "slave")
				.containsEntry("master_port", Integer.toString(primary.port()));
			assertThat(sentinels.masterName()).isEqualTo("idempotency-test");
			assertThat(sentinels.sentinelNodes().split(",")).hasSize(3)
				.allSatisfy((address) -> assertThat(address).startsWith("127.0.0.1:"))
				.doesNotContain(primary.host() + ":" + primary.port(), replica.host() + ":" + replica.port());
			String key = UUID.randomUUID().toString();
			LettuceConnectionFactory factory = sentinels.newConnectionFactory();
			try (RedisConnection connection = factory.getConnection()) {
				connection.stringCommands().set(bytes(key), bytes("through the sentinels"));
			}
			finally {
				factory.destroy();
			}
			assertThat(commands(primary).get(key)).isEqualTo("through the sentinels");
		}
	}

	@Test
	void failoverPromotesTheReplicaDemotesThePrimaryAndTheFactoryFollows() {
		try (RedisSentinels sentinels = TestRedis.startSentinels()) {
			RedisServer first = sentinels.primary();
			RedisServer second = sentinels.replica();
			LettuceConnectionFactory factory = sentinels.newConnectionFactory();
			try {
				String key = UUID.randomUUID().toString();
				try (RedisConnection connection = factory.getConnection()) {
					connection.stringCommands().set(bytes(key), bytes("before"));
				}
				assertThat(commands(first).waitForReplication(1, 5000)).isEqualTo(1);
				assertThat(sentinels.failover()).isSameAs(second);
				assertThat(sentinels.primary()).isSameAs(second);
				assertThat(RedisAdmin.parse(commands(second).info("replication"))).containsEntry("role", "master");
				await().atMost(Duration.ofSeconds(20))
					.ignoreExceptions()
					.untilAsserted(() -> assertThat(sentinels.replica()).isSameAs(first));
				await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
					try (RedisConnection connection = factory.getConnection()) {
						connection.stringCommands().set(bytes(key + "-after"), bytes("after"));
						assertThat(connection.stringCommands().get(bytes(key))).isEqualTo(bytes("before"));
					}
				});
				assertThat(commands(second).get(key + "-after")).isEqualTo("after");
				assertThat(sentinels.failover()).isSameAs(first);
				assertThat(sentinels.primary()).isSameAs(first);
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void closedSetLeavesNoServerRunning() {
		RedisSentinels sentinels = TestRedis.startSentinels();
		List<RedisServer> servers = new ArrayList<>(List.of(sentinels.primary(), sentinels.replica()));
		for (String address : sentinels.sentinelNodes().split(",")) {
			servers.add(new GivenRedisServer("127.0.0.1", Integer.parseInt(address.split(":")[1]), "the test"));
		}
		sentinels.close();
		assertThat(servers).allSatisfy((server) -> {
			assertThat(RedisPing.answers(server.host(), server.port())).isFalse();
			assertThat(FreePorts.isFree(server.port())).isTrue();
		});
	}

	private RedisCommands<String, String> commands(RedisServer server) {
		return this.client.connect(RedisURI.create(server.host(), server.port())).sync();
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
