package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import dev.idempotency.test.redis.RedisCluster;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Replica acknowledgements and health checks on a Redis Cluster of three primaries with
 * one replica each, with keys on every primary: {@code WAIT} goes to the primary of the
 * key's slot, and follows a slot that moves.
 */
class RedisClusterReplicaAcksTests {

	private static final String PREFIX = "idempotency-cluster-acks:";

	private static final Duration ACK_TIMEOUT = Duration.ofMillis(500);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	private static RedisCluster cluster;

	private static LettuceConnectionFactory factory;

	private static RedisClient client;

	private static final Map<String, StatefulRedisConnection<byte[], byte[]>> connections = new HashMap<>();

	private final List<RedisServer> frozen = new ArrayList<>();

	@BeforeAll
	static void startCluster() {
		cluster = TestRedis.startCluster();
		factory = cluster.newConnectionFactory();
		client = RedisClient.create();
		// After a full synchronisation Redis streams nothing to a replica, WAIT's request
		// for an acknowledgement included, until the replica's first periodic one
		RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX, COMMAND_TIMEOUT,
				new ReplicaAcks(1, Duration.ofSeconds(10)));
		cluster.primaries().forEach((primary) -> store.acquire(keyOn(primary), request("warm-up")));
	}

	@AfterAll
	static void stopCluster() {
		client.shutdown();
		factory.destroy();
		cluster.close();
	}

	@AfterEach
	void thaw() {
		this.frozen.forEach(RedisServer::thaw);
		if (!this.frozen.isEmpty()) {
			RedisIdempotencyStore store = store(1);
			for (RedisServer primary : cluster.primaries()) {
				await().atMost(DEADLINE).ignoreExceptions().until(() -> {
					store.acquire(keyOn(primary), request("probe"));
					return true;
				});
			}
		}
	}

	@Test
	void recordsOfKeysOnEveryPrimaryAreOnTheirReplicasWhenTheCallReturns() {
		RedisIdempotencyStore store = store(1);
		for (RedisServer primary : cluster.primaries()) {
			RecordKey key = keyOn(primary);
			RedisServer replica = cluster.replicaOf(primary);
			assertThat(store.acquire(key, request("a"))).isEqualTo(new Acquired(1, false));
			assertThat(readOnReplica(replica, key)).isEqualTo(read(primary, key)).isNotNull();
			assertThat(store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION)).isTrue();
			assertThat(readOnReplica(replica, key)).isEqualTo(read(primary, key));
		}
	}

	@Test
	void waitGoesToThePrimaryOfTheKey() {
		RedisIdempotencyStore store = store(1);
		loadScripts(store);
		for (RedisServer primary : cluster.primaries()) {
			RecordKey key = keyOn(primary);
			Map<RedisServer, Long> before = waitsByPrimary();
			store.acquire(key, request("a"));
			store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION);
			Map<RedisServer, Long> expected = new HashMap<>(before);
			expected.merge(primary, 2L, Long::sum);
			assertThat(waitsByPrimary()).isEqualTo(expected);
		}
	}

	@Test
	void frozenReplicaFailsTheClaimsAndCompletionsOfItsPrimaryOnly() {
		RedisIdempotencyStore store = store(1);
		List<RedisServer> primaries = cluster.primaries();
		RedisServer failing = primaries.get(0);
		RecordKey completing = keyOn(failing);
		store.acquire(completing, request("a"));
		freeze(cluster.replicaOf(failing));
		RecordKey claimed = keyOn(failing);
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> store.acquire(claimed, request("a")))
			.withMessageContaining("Only 0 of 1 Redis replicas acknowledged the claim of the idempotency record "
					+ "under key '" + redisKey(claimed) + "'")
			.withMessageEndingWith("the claim was released");
		assertThat(store.read(claimed)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.FAILED);
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> store.complete(completing, "a", 1, StoredResult.of(bytes("result")), RETENTION))
			.withMessageContaining("Only 0 of 1 Redis replicas acknowledged the completion of");
		for (RedisServer other : primaries.subList(1, primaries.size())) {
			RecordKey key = keyOn(other);
			assertThat(store.acquire(key, request("a"))).isEqualTo(new Acquired(1, false));
			assertThat(store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION)).isTrue();
		}
	}

	// A slot moves while the store's own connections still see it on its old primary:
	// during the migration the old one answers ASK, afterwards MOVED, and the script and
	// its WAIT go to the new one either way. The factory never refreshes its view itself.
	@Test
	void claimAndCompletionFollowASlotThatMoves() {
		LettuceConnectionFactory staleFactory = staleFactory();
		try {
			RedisIdempotencyStore store = new RedisIdempotencyStore(staleFactory, PREFIX, COMMAND_TIMEOUT,
					new ReplicaAcks(1, ACK_TIMEOUT));
			List<RedisServer> primaries = cluster.primaries();
			RedisServer source = primaries.get(0);
			RedisServer target = primaries.get(1);
			loadScripts(store);
			RecordKey key = keyInEmptySlotOn(source);
			int slot = SlotHash.getSlot(bytes(redisKey(key)));
			String sourceId = commands(source).clusterMyId();
			String targetId = commands(target).clusterMyId();
			commands(target).clusterSetSlotImporting(slot, sourceId);
			commands(source).clusterSetSlotMigrating(slot, targetId);
			long asks = errors(source, "ASK");
			Map<RedisServer, Long> waits = waitsByPrimary();
			assertThat(store.acquire(key, request("a"))).isEqualTo(new Acquired(1, false));
			assertThat(errors(source, "ASK")).isGreaterThan(asks);
			assertThat(waitsByPrimary().get(target)).isEqualTo(waits.get(target) + 1);
			commands(target).clusterSetSlotNode(slot, targetId);
			commands(source).clusterSetSlotNode(slot, targetId);
			long moves = errors(source, "MOVED");
			assertThat(store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION)).isTrue();
			assertThat(errors(source, "MOVED")).isGreaterThan(moves);
			assertThat(waitsByPrimary().get(target)).isEqualTo(waits.get(target) + 2);
			assertThat(read(target, key)).isNotNull();
		}
		finally {
			staleFactory.destroy();
		}
	}

	@Test
	void healthAsksEveryPrimary() {
		RedisIdempotencyStore store = store(0);
		List<RedisServer> primaries = cluster.primaries();
		assertThat(store.clusterPrimaries()).containsExactlyInAnyOrderElementsOf(addresses(primaries));
		primaries.forEach((primary) -> commands(primary).scriptFlush());
		RecordKey key = keyOn(primaries.get(0));
		store.acquire(key, request("a"));
		store.complete(key, "a", 1, StoredResult.of(bytes("result")), RETENTION);
		assertThat(store.scriptsLoaded(address(primaries.get(0)))).containsEntry("acquire", true)
			.containsEntry("complete", true)
			.containsEntry("renew", false);
		assertThat(store.scriptsLoaded(address(primaries.get(1)))).containsEntry("acquire", false);
		assertThat(store.scriptsLoaded()).containsEntry("acquire", false).containsEntry("renew", false);
		for (RedisServer primary : primaries) {
			store.acquire(keyOn(primary), request("a"));
		}
		assertThat(store.scriptsLoaded()).containsEntry("acquire", true).containsEntry("renew", false);
		RedisServerCheck check = store.serverCheck();
		Map<RedisServer, Long> sizes = dbSizes(primaries);
		for (RedisServer primary : primaries) {
			RedisServerStatus status = check.check(address(primary));
			assertThat(status.acceptsWrites()).isTrue();
			assertThat(status.role()).isEqualTo(RedisServerStatus.MASTER);
		}
		assertThat(dbSizes(primaries)).isEqualTo(sizes);
	}

	@Test
	void healthTellsWhichPrimaryRefusesWrites() {
		RedisIdempotencyStore store = store(0);
		List<RedisServer> primaries = cluster.primaries();
		RedisServer refusing = primaries.get(2);
		commands(refusing).configSet("min-replicas-to-write", "2");
		try {
			RedisServerCheck check = store.serverCheck();
			assertThat(check.check(address(refusing)).writeRefusal()).startsWith("NOREPLICAS");
			assertThat(check.check(address(primaries.get(0))).acceptsWrites()).isTrue();
			assertThat(check.check(address(primaries.get(1))).acceptsWrites()).isTrue();
		}
		finally {
			commands(refusing).configSet("min-replicas-to-write", "0");
		}
	}

	@Test
	void healthOfANodeThatIsNoPrimaryIsAStoreError() {
		RedisIdempotencyStore store = store(0);
		String replica = address(cluster.replicaOf(cluster.primaries().get(0)));
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> store.serverCheck().check(replica))
			.withMessage("'" + replica + "' is not a primary of the Redis Cluster that can hold idempotency records "
					+ "under prefix '" + PREFIX + "' now");
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> store.scriptsLoaded(replica));
	}

	// A hash tag in the prefix puts every record in one slot: only its primary can hold
	// any
	@Test
	void prefixWithAHashTagHasOnePrimary() {
		RedisIdempotencyStore store = new RedisIdempotencyStore(factory, "{idempotency}:", COMMAND_TIMEOUT);
		RedisServer primary = cluster.primaryOf(bytes("{idempotency}:anything"));
		assertThat(store.clusterPrimaries()).containsExactly(address(primary));
		assertThat(store.serverCheck().check(address(primary)).acceptsWrites()).isTrue();
	}

	// So that no NOSCRIPT makes a script and its WAIT go twice
	private static void loadScripts(RedisIdempotencyStore store) {
		for (RedisServer primary : cluster.primaries()) {
			RecordKey key = keyOn(primary);
			store.acquire(key, request("warm-up"));
			store.complete(key, "warm-up", 1, StoredResult.of(bytes("result")), RETENTION);
		}
	}

	// The engine abandons an acquire that timed out on the shared cluster connection,
	// whose connection to the node is not the acquire's: on a primary that stalls, it can
	// run first. The acquire's own abandon follows it on its node connection.
	@Test
	void acquireThatTimedOutOnAFrozenPrimaryLeavesNoClaimBehindWhenItRuns() {
		RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX, Duration.ofMillis(300),
				new ReplicaAcks(1, ACK_TIMEOUT));
		RedisServer primary = cluster.primaries().get(0);
		RecordKey key = keyOn(primary);
		RecordKey other = keyOn(primary);
		store.acquire(other, request("warm-up"));
		store.release(other, "nobody", 1, RETENTION);
		store.renew(other, "nobody", 1, LEASE, RETENTION);
		freeze(primary);
		store.renewAsync(other, "nobody", 1, LEASE, RETENTION);
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> store.acquire(key, request("a")));
		store.abandon(key, "a", RETENTION);
		primary.thaw();
		await().atMost(DEADLINE)
			.untilAsserted(() -> assertThat(store.read(key)).get()
				.extracting(IdempotencyRecord::state)
				.isEqualTo(RecordState.FAILED));
		assertThat(store.acquire(key, request("b"))).isEqualTo(new Acquired(2, false));
	}

	private void freeze(RedisServer server) {
		server.freeze();
		this.frozen.add(server);
	}

	private static RedisIdempotencyStore store(int replicas) {
		return new RedisIdempotencyStore(factory, PREFIX, COMMAND_TIMEOUT, new ReplicaAcks(replicas, ACK_TIMEOUT));
	}

	private static LettuceConnectionFactory staleFactory() {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		cluster.nodes().forEach((node) -> configuration.addClusterNode(new RedisNode(node.host(), node.port())));
		ClusterTopologyRefreshOptions noRefresh = ClusterTopologyRefreshOptions.builder()
			.disableAllAdaptiveRefreshTriggers()
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder()
					.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(noRefresh).build())
					.build());
		factory.afterPropertiesSet();
		return factory;
	}

	private static Map<RedisServer, Long> waitsByPrimary() {
		Map<RedisServer, Long> waits = new LinkedHashMap<>();
		for (RedisServer primary : cluster.primaries()) {
			waits.put(primary, stat(commands(primary).info("commandstats"), "cmdstat_wait:calls="));
		}
		return waits;
	}

	private static long errors(RedisServer node, String code) {
		return stat(commands(node).info("errorstats"), "errorstat_" + code + ":count=");
	}

	private static long stat(String info, String prefix) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith(prefix)) {
				String value = line.substring(prefix.length());
				int end = value.indexOf(',');
				return Long.parseLong((end >= 0) ? value.substring(0, end) : value.trim());
			}
		}
		return 0;
	}

	private static Map<RedisServer, Long> dbSizes(List<RedisServer> primaries) {
		Map<RedisServer, Long> sizes = new HashMap<>();
		primaries.forEach((primary) -> sizes.put(primary, commands(primary).dbsize()));
		return sizes;
	}

	private static byte[] read(RedisServer node, RecordKey key) {
		return commands(node).get(bytes(redisKey(key)));
	}

	private static byte[] readOnReplica(RedisServer replica, RecordKey key) {
		RedisCommands<byte[], byte[]> commands = commands(replica);
		commands.readOnly();
		return commands.get(bytes(redisKey(key)));
	}

	private static RedisCommands<byte[], byte[]> commands(RedisServer node) {
		return connections.computeIfAbsent(address(node), (address) -> {
			StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE,
					RedisURI.create(node.host(), node.port()));
			connection.setTimeout(COMMAND_TIMEOUT);
			return connection;
		}).sync();
	}

	private static RecordKey keyOn(RedisServer primary) {
		while (true) {
			RecordKey key = new RecordKey("acks", UUID.randomUUID().toString());
			if (cluster.primaryOf(bytes(redisKey(key))).equals(primary)) {
				return key;
			}
		}
	}

	// Redis refuses to hand over a slot its old primary still holds keys of, and the
	// other tests leave records behind
	private static RecordKey keyInEmptySlotOn(RedisServer primary) {
		while (true) {
			RecordKey key = keyOn(primary);
			if (commands(primary).clusterCountKeysInSlot(SlotHash.getSlot(bytes(redisKey(key)))) == 0) {
				return key;
			}
		}
	}

	private static List<String> addresses(List<RedisServer> nodes) {
		return nodes.stream().map(RedisClusterReplicaAcksTests::address).toList();
	}

	private static String address(RedisServer node) {
		return node.host() + ":" + node.port();
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

}
