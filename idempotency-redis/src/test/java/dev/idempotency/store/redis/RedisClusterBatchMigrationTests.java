package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.BatchAcquire;
import dev.idempotency.store.BatchComplete;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import dev.idempotency.test.redis.RedisCluster;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Batches whose keys share a slot that is moving between primaries, on a Redis Cluster of
 * the tests' own (they move slots): a single-key script follows {@code ASK}, but a script
 * on many keys of a slot whose keys are not all on one side is refused with
 * {@code TRYAGAIN} for as long as the migration lasts.
 */
class RedisClusterBatchMigrationTests {

	private static final String PREFIX = "idempotency-migration:";

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	private static RedisCluster cluster;

	private static LettuceConnectionFactory factory;

	private static RedisClient client;

	@BeforeAll
	static void startCluster() {
		cluster = TestRedis.startCluster();
		factory = cluster.newConnectionFactory();
		client = RedisClient.create();
	}

	@AfterAll
	static void stopCluster() {
		client.shutdown();
		factory.destroy();
		cluster.close();
	}

	// One record of the tag is already on the old primary, the others are new: the old
	// one has some of the call's keys, the new one, asked, has not all of them
	@Test
	void batchOfASlotThatIsMovingGetsTheAnswersOfSingleCalls() {
		RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX);
		String tag = "{" + UUID.randomUUID() + "}";
		RecordKey completed = new RecordKey("batch", tag + "completed");
		store.acquire(completed, request("earlier"));
		store.complete(completed, "earlier", 1, StoredResult.of(bytes("stored")), RETENTION);
		List<RecordKey> fresh = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			fresh.add(new RecordKey("batch", tag + "line-" + i));
		}
		int slot = SlotHash.getSlot(bytes(redisKey(completed)));
		RedisServer source = cluster.primaryOf(bytes(redisKey(completed)));
		RedisServer target = cluster.primaries()
			.stream()
			.filter((primary) -> !primary.equals(source))
			.findFirst()
			.orElseThrow();
		String sourceId = commands(source).clusterMyId();
		String targetId = commands(target).clusterMyId();
		commands(target).clusterSetSlotImporting(slot, sourceId);
		commands(source).clusterSetSlotMigrating(slot, targetId);
		try {
			List<BatchAcquire> batch = new ArrayList<>();
			batch.add(new BatchAcquire(completed, request("a")));
			fresh.forEach((key) -> batch.add(new BatchAcquire(key, request("a"))));
			batch.add(new BatchAcquire(fresh.get(0), request("b")));
			List<AcquireResult> results = store.acquireAll(batch);
			assertThat(((Completed) results.get(0)).result().body()).isEqualTo(bytes("stored"));
			assertThat(results.subList(1, 4)).containsOnly(new Acquired(1, false));
			assertThat(results.get(4)).isInstanceOf(InProgress.class);
			assertThat(store.completeAll(fresh.stream()
				.map((key) -> new BatchComplete(key, "a", 1, StoredResult.of(bytes(key.key())), RETENTION))
				.toList())).containsOnly(true);
			for (RecordKey key : fresh) {
				assertThat(((Completed) store.acquire(key, request("c"))).result().body()).isEqualTo(bytes(key.key()));
			}
		}
		finally {
			commands(target).clusterSetSlotStable(slot);
			commands(source).clusterSetSlotStable(slot);
		}
	}

	private static RedisCommands<String, String> commands(RedisServer node) {
		StatefulRedisConnection<String, String> connection = client.connect(RedisURI.create(node.host(), node.port()));
		return connection.sync();
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
