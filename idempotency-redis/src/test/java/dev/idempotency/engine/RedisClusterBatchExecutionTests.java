package dev.idempotency.engine;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
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
 * script call goes to the primary of its keys' slot, one call for the items of a slot.
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
		for (int i = 0; i < 60; i++) {
			items.add(new Item("item-" + i));
		}
		Map<RedisServer, Long> callsByPrimary = scriptCallsByPrimary(cluster, items);
		assertThat(callsByPrimary.keySet()).containsExactlyInAnyOrderElementsOf(cluster.primaries());
		assertBatchTakes(cluster, items, callsByPrimary);
	}

	// Keys with one hash tag share a slot: the items of each tag are acquired in one
	// script call, and completed in one, on their slot's primary; the untagged items,
	// each in a slot of its own, take a call each
	@Test
	void itemsWhoseKeysShareAHashTagTakeOneScriptCallPerSlot() {
		RedisCluster cluster = TestRedis.cluster();
		List<Item> items = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			items.add(new Item("{order-a}line-" + i));
			items.add(new Item("{order-b}line-" + i));
			if (i % 10 == 0) {
				items.add(new Item("single-" + i));
			}
		}
		assertThat(SlotHash.getSlot(redisKey(items.get(0)))).isNotEqualTo(SlotHash.getSlot(redisKey(items.get(1))));
		Map<RedisServer, Long> callsByPrimary = scriptCallsByPrimary(cluster, items);
		assertThat(callsByPrimary.values().stream().mapToLong(Long::longValue).sum()).isLessThanOrEqualTo(2 + 4);
		assertBatchTakes(cluster, items, callsByPrimary);
	}

	// The acquires, then the completions, each take the given script calls on each
	// primary; a second batch of the same items replays each
	private void assertBatchTakes(RedisCluster cluster, List<Item> items, Map<RedisServer, Long> callsByPrimary) {
		Item last = items.get(items.size() - 1);
		Map<RedisServer, Long> before = evalshaCalls(cluster);
		List<Map<RedisServer, Long>> afterAcquire = new ArrayList<>();
		List<BatchOutcome<Item, String>> outcomes = batch(items, (item) -> {
			if (item.equals(last)) {
				afterAcquire.add(evalshaCalls(cluster));
			}
			return effect(item);
		});
		assertThat(outcomes).hasSize(items.size()).allMatch(Executed.class::isInstance);
		Map<RedisServer, Long> after = evalshaCalls(cluster);
		for (RedisServer primary : cluster.primaries()) {
			long calls = callsByPrimary.getOrDefault(primary, 0L);
			assertThat(afterAcquire.get(0).get(primary) - before.get(primary)).as("acquires on " + primary)
				.isEqualTo(calls);
			assertThat(after.get(primary) - before.get(primary)).as("acquires and completes on " + primary)
				.isEqualTo(2 * calls);
		}
		assertThat(batch(items, this::effect)).hasSize(items.size()).allMatch(Replayed.class::isInstance);
		assertThat(items).allMatch((item) -> effects(item.id()) == 1);
	}

	// One script call per hash slot that the items' keys fall in (each of these batches
	// holds fewer items per slot than one call takes), on that slot's primary
	private Map<RedisServer, Long> scriptCallsByPrimary(RedisCluster cluster, List<Item> items) {
		Map<Integer, byte[]> slots = new HashMap<>();
		for (Item item : items) {
			slots.putIfAbsent(SlotHash.getSlot(redisKey(item)), redisKey(item));
		}
		Map<RedisServer, Long> calls = new HashMap<>();
		for (byte[] key : slots.values()) {
			calls.merge(cluster.primaryOf(key), 1L, Long::sum);
		}
		return calls;
	}

	private byte[] redisKey(Item item) {
		return (PREFIX + name() + ":" + item.id()).getBytes(StandardCharsets.UTF_8);
	}

	// Calls that ran a script: a call that got NOSCRIPT, the first on a primary that did
	// not have the script yet, is sent again and counted once
	private static Map<RedisServer, Long> evalshaCalls(RedisCluster cluster) {
		Map<RedisServer, Long> calls = new HashMap<>();
		for (RedisServer primary : cluster.primaries()) {
			try (StatefulRedisConnection<String, String> connection = client
				.connect(RedisURI.create(primary.host(), primary.port()))) {
				String stats = connection.sync().info("commandstats");
				calls.put(primary, stat(stats, "calls=") - stat(stats, "failed_calls="));
			}
		}
		return calls;
	}

	// A field of cmdstat_evalsha in INFO commandstats
	private static long stat(String info, String field) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("cmdstat_evalsha:")) {
				for (String entry : line.substring("cmdstat_evalsha:".length()).split(",")) {
					if (entry.startsWith(field)) {
						return Long.parseLong(entry.substring(field.length()).trim());
					}
				}
			}
		}
		return 0;
	}

}
