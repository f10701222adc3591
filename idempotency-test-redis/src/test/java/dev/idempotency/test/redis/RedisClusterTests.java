package dev.idempotency.test.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

class RedisClusterTests {

	private final RedisClient client = RedisClient.create();

	@AfterEach
	void shutdownClient() {
		this.client.shutdown();
	}

	@Test
	void clusterHasThreePrimariesWithAReplicaEachAndServesEveryKeyOnItsPrimary() {
		RedisCluster cluster = TestRedis.cluster();
		assertThat(cluster.nodes()).hasSize(6);
		List<RedisServer> primaries = cluster.primaries();
		assertThat(primaries).hasSize(3);
		Set<RedisServer> replicas = new HashSet<>();
		for (RedisServer primary : primaries) {
			RedisServer replica = cluster.replicaOf(primary);
			assertThat(replica).isNotIn(primaries);
			assertThat(RedisAdmin.parse(commands(replica).info("replication"))).containsEntry("role", "slave")
				.containsEntry("master_port", Integer.toString(primary.port()))
				.containsEntry("master_link_status", "up");
			replicas.add(replica);
		}
		assertThat(replicas).hasSize(3);
		assertThat(cluster.nodeAddresses().split(",")).containsExactlyInAnyOrderElementsOf(
				cluster.nodes().stream().map((node) -> node.host() + ":" + node.port()).toList());
		Map<RedisServer, Integer> keysByPrimary = new HashMap<>();
		LettuceConnectionFactory factory = cluster.newConnectionFactory();
		try (RedisConnection connection = factory.getConnection()) {
			for (int i = 0; i < 30; i++) {
				String key = "spread-" + UUID.randomUUID();
				connection.stringCommands().set(bytes(key), bytes("through the factory"));
				RedisServer primary = cluster.primaryOf(bytes(key));
				assertThat(commands(primary).get(key)).isEqualTo("through the factory");
				keysByPrimary.merge(primary, 1, Integer::sum);
			}
		}
		finally {
			factory.destroy();
		}
		assertThat(keysByPrimary.keySet()).containsExactlyInAnyOrderElementsOf(primaries);
	}

	@Test
	void sharedClusterIsStartedOnceAndOutlivesClose() {
		RedisCluster cluster = TestRedis.cluster();
		cluster.close();
		assertThat(TestRedis.cluster()).isSameAs(cluster);
		assertThat(cluster.nodes()).allMatch(RedisServer::isRunning);
		assertThat(cluster.primaries()).hasSize(3);
	}

	@Test
	void killedPrimaryIsReplacedByItsReplicaWhichTheFactoryFollows() {
		try (RedisCluster cluster = TestRedis.startCluster()) {
			LettuceConnectionFactory factory = cluster.newConnectionFactory();
			try {
				String key = "failover-" + UUID.randomUUID();
				try (RedisConnection connection = factory.getConnection()) {
					connection.stringCommands().set(bytes(key), bytes("before"));
				}
				RedisServer primary = cluster.primaryOf(bytes(key));
				RedisServer replica = cluster.replicaOf(primary);
				assertThat(commands(primary).waitForReplication(1, 5000)).isEqualTo(1);
				primary.kill();
				assertThat(cluster.awaitPromotion(primary)).isSameAs(replica);
				assertThat(cluster.primaries()).hasSize(3).contains(replica).doesNotContain(primary);
				assertThat(cluster.primaryOf(bytes(key))).isSameAs(replica);
				await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
					try (RedisConnection connection = factory.getConnection()) {
						assertThat(connection.stringCommands().get(bytes(key))).isEqualTo(bytes("before"));
					}
				});
				primary.restart();
				await().atMost(Duration.ofSeconds(20))
					.ignoreExceptions()
					.untilAsserted(() -> assertThat(cluster.replicaOf(replica)).isSameAs(primary));
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void frozenPrimaryIsReplacedAndComesBackAsAReplica() {
		try (RedisCluster cluster = TestRedis.startCluster()) {
			RedisServer primary = cluster.primaries().get(1);
			RedisServer replica = cluster.replicaOf(primary);
			primary.freeze();
			try {
				assertThat(cluster.awaitPromotion(primary)).isSameAs(replica);
			}
			finally {
				primary.thaw();
			}
			await().atMost(Duration.ofSeconds(20))
				.ignoreExceptions()
				.untilAsserted(() -> assertThat(cluster.replicaOf(replica)).isSameAs(primary));
			assertThat(cluster.primaries()).doesNotContain(primary);
		}
	}

	@Test
	void closedClusterLeavesNoNodeRunningAndFreesItsPorts() {
		RedisCluster cluster = TestRedis.startCluster();
		List<RedisServer> nodes = cluster.nodes();
		cluster.close();
		assertThat(nodes).allSatisfy((node) -> {
			assertThat(node.isRunning()).isFalse();
			assertThat(FreePorts.isFree(node.port())).isTrue();
			assertThat(FreePorts.isFree(node.port() + 10000)).isTrue();
		});
	}

	@Test
	void rolesOfNodesOfAnotherClusterOrOfReplicasAreRefused() {
		RedisCluster cluster = TestRedis.cluster();
		RedisServer stranger = new GivenRedisServer("127.0.0.1", 1, "a test");
		assertThatIllegalArgumentException().isThrownBy(() -> cluster.replicaOf(stranger))
			.withMessageStartingWith("'primary' must be a node of ");
		RedisServer replica = cluster.replicaOf(cluster.primaries().get(0));
		assertThatIllegalArgumentException().isThrownBy(() -> cluster.replicaOf(replica))
			.withMessage("'primary' must be a primary, but " + replica + " is not");
		assertThatIllegalArgumentException().isThrownBy(() -> cluster.awaitPromotion(replica))
			.withMessage("'formerPrimary' must have been a primary, but " + replica + " was not when last asked");
	}

	@Test
	void givenClusterIsFoundFromSomeOfItsNodesAndCannotBeStopped() {
		RedisCluster shared = TestRedis.cluster();
		RedisServer seed = shared.nodes().get(0);
		RedisDiscovery discovery = new RedisDiscovery(
				Map.of(TestRedis.CLUSTER_NODES_VARIABLE, seed.host() + ":" + seed.port())::get, () -> false,
				() -> false, () -> false);
		StartedCluster given = TestRedisLocator.locateCluster(discovery);
		try {
			assertThat(given.nodeAddresses().split(",")).containsExactlyInAnyOrder(shared.nodeAddresses().split(","));
			assertThat(given.primaries()).extracting(RedisServer::port)
				.containsExactlyElementsOf(shared.primaries().stream().map(RedisServer::port).toList());
			RedisServer node = given.nodes().get(0);
			assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(node::kill)
				.withMessageContaining(TestRedis.CLUSTER_NODES_VARIABLE);
			given.close();
			assertThat(node.isRunning()).isTrue();
		}
		finally {
			given.shutdown();
		}
		assertThat(shared.nodes()).allMatch(RedisServer::isRunning);
	}

	private RedisCommands<String, String> commands(RedisServer server) {
		return this.client.connect(RedisURI.create(server.host(), server.port())).sync();
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
