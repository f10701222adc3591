package dev.idempotency.test.redis;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RedisReplicaSetTests {

	private final RedisClient client = RedisClient.create();

	@AfterEach
	void shutdownClient() {
		this.client.shutdown();
	}

	@Test
	void replicasFollowThePrimaryAndAreInSyncOnceAwaited() {
		try (RedisReplicaSet set = TestRedis.startReplicaSet(2)) {
			assertThat(set.replicas()).hasSize(2).doesNotContain(set.primary());
			Map<String, String> primary = RedisAdmin.parse(commands(set.primary()).info("replication"));
			assertThat(primary).containsEntry("role", "master").containsEntry("connected_slaves", "2");
			String key = UUID.randomUUID().toString();
			commands(set.primary()).set(key, "replicated");
			set.awaitReplicasInSync();
			for (RedisServer replica : set.replicas()) {
				RedisCommands<String, String> commands = commands(replica);
				assertThat(RedisAdmin.parse(commands.info("replication"))).containsEntry("role", "slave")
					.containsEntry("master_port", Integer.toString(set.primary().port()))
					.containsEntry("master_link_status", "up");
				assertThat(commands.get(key)).isEqualTo("replicated");
			}
		}
	}

	@Test
	void killedReplicaAcknowledgesNothingAndComesBackAsAReplicaOfTheSamePrimary() {
		try (RedisReplicaSet set = TestRedis.startReplicaSet(2)) {
			RedisCommands<String, String> primary = commands(set.primary());
			RedisServer killed = set.replicas().get(0);
			killed.kill();
			primary.set(UUID.randomUUID().toString(), "while one replica is down");
			assertThat(primary.waitForReplication(2, 1000)).isEqualTo(1);
			killed.restart();
			set.awaitReplicasInSync();
			primary.set(UUID.randomUUID().toString(), "with both replicas");
			assertThat(primary.waitForReplication(2, 5000)).isEqualTo(2);
		}
	}

	@Test
	void closedSetLeavesNoServerRunning() {
		RedisReplicaSet set = TestRedis.startReplicaSet(1);
		List<RedisServer> servers = List.of(set.primary(), set.replicas().get(0));
		set.close();
		assertThat(servers).allSatisfy((server) -> {
			assertThat(server.isRunning()).isFalse();
			assertThat(RedisPing.answers(server.host(), server.port())).isFalse();
			assertThat(FreePorts.isFree(server.port())).isTrue();
		});
	}

	@Test
	void replicaSetWithoutReplicasIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> TestRedis.startReplicaSet(0))
			.withMessage("'replicas' must be positive, but was 0");
	}

	private RedisCommands<String, String> commands(RedisServer server) {
		StatefulRedisConnection<String, String> connection = this.client
			.connect(RedisURI.create(server.host(), server.port()));
		return connection.sync();
	}

}
