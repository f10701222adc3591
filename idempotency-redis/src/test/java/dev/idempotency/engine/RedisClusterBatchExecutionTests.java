package dev.idempotency.engine;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.BatchOutcome;
import dev.idempotency.BatchOutcome.Executed;
import dev.idempotency.BatchOutcome.Replayed;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.RedisCluster;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Batches on the shared Redis Cluster, whose keys spread over three primaries: each
 * script goes to the primary of its key's slot.
 */
class RedisClusterBatchExecutionTests extends BatchExecutionTests {

	private static final String PREFIX = "idempotency:";

	private static LettuceConnectionFactory connectionFactory;

	private static RedisClient client;

	@BeforeAll
	static void createConnectionFactory() {
		connectionFactory = TestRedis.cluster().newConnectionFactory();
		client = RedisClient.create();
	}

	@AfterAll
	static void destroyConnectionFactory() {
		connectionFactory.destroy();
		client.shutdown();
	}

	@Override
	protected IdempotencyStore createStore() {
		return new RedisIdempotencyStore(connectionFactory, PREFIX);
	}

	@Test
	void batchSpreadOverEveryPrimarySendsEachItemsScriptsToItsKeysPrimaryOnly() {
		RedisCluster cluster = TestRedis.cluster();
		List<Item> items = new ArrayList<>();
		Map<RedisServer, Long> itemsByPrimary = new HashMap<>();
		for (int i = 0; i < 60; i++) {
			Item item = new Item("item-" + i);
			items.add(item);
			itemsByPrimary.merge(cluster.primaryOf(redisKey(item)), 1L, Long::sum);
		}
		assertThat(itemsByPrimary.keySet()).containsExactlyInAnyOrderElementsOf(cluster.primaries());
		Map<RedisServer, Long> before = evalshaCalls(cluster);
		List<Map<RedisServer, Long>> afterAcquire = new ArrayList<>();
		List<BatchOutcome<Item, String>> outcomes = batch(items, (item) -> {
			if (item.id().equals("item-59")) {
				afterAcquire.add(evalshaCalls(cluster));
			}
			return effect(item);
		});
		assertThat(outcomes).allMatch(Executed.class::isInstance);
		Map<RedisServer, Long> after = evalshaCalls(cluster);
		for (RedisServer primary : cluster.primaries()) {
			long onPrimary = itemsByPrimary.get(primary);
			assertThat(afterAcquire.get(0).get(primary) - before.get(primary)).as("acquires on " + primary)
				.isEqualTo(onPrimary);
			assertThat(after.get(primary) - before.get(primary)).as("acquires and completes on " + primary)
				.isEqualTo(2 * onPrimary);
		}
		assertThat(batch(items, this::effect)).allMatch(Replayed.class::isInstance);
	}

	private byte[] redisKey(Item item) {
		return (PREFIX + name() + ":" + item.id()).getBytes(StandardCharsets.UTF_8);
	}

	private static Map<RedisServer, Long> evalshaCalls(RedisCluster cluster) {
		Map<RedisServer, Long> calls = new HashMap<>();
		for (RedisServer primary : cluster.primaries()) {
			try (StatefulRedisConnection<String, String> connection = client
				.connect(RedisURI.create(primary.host(), primary.port()))) {
				calls.put(primary, stat(connection.sync().info("commandstats"), "cmdstat_evalsha:calls="));
			}
		}
		return calls;
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

}
