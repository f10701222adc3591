package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.test.redis.RedisCluster;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import dev.idempotency.test.store.IdempotencyStoreContractTests;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract on a Redis Cluster of three primaries: every record lives on the primary
 * that serves its key's slot, and the records of random keys spread over all of them.
 */
class RedisClusterIdempotencyStoreContractTests extends IdempotencyStoreContractTests {

	private static final String PREFIX = "idempotency-test:";

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void createConnectionFactory() {
		connectionFactory = TestRedis.cluster().newConnectionFactory();
	}

	@AfterAll
	static void destroyConnectionFactory() {
		connectionFactory.destroy();
	}

	@Override
	protected IdempotencyStore createStore() {
		return new RedisIdempotencyStore(connectionFactory, PREFIX);
	}

	@Test
	void recordsLiveOnThePrimaryOfTheirSlotAndSpreadOverEveryPrimary() {
		RedisCluster cluster = TestRedis.cluster();
		Map<RedisServer, Integer> recordsByPrimary = new HashMap<>();
		Map<RedisServer, LettuceConnectionFactory> nodes = new HashMap<>();
		try {
			for (int i = 0; i < 60; i++) {
				RecordKey key = newKey();
				store().acquire(key, request("a"));
				byte[] redisKey = (PREFIX + key.name() + ":" + key.key()).getBytes(StandardCharsets.UTF_8);
				RedisServer primary = cluster.primaryOf(redisKey);
				LettuceConnectionFactory node = nodes.computeIfAbsent(primary,
						(server) -> TestRedis.connectionFactory(server.host(), server.port()));
				// A node answers MOVED for a key of another node's slot
				try (RedisConnection connection = node.getConnection()) {
					assertThat(connection.keyCommands().exists(redisKey)).as("%s on %s", key, primary).isTrue();
				}
				recordsByPrimary.merge(primary, 1, Integer::sum);
			}
		}
		finally {
			nodes.values().forEach(LettuceConnectionFactory::destroy);
		}
		assertThat(recordsByPrimary.keySet()).containsExactlyInAnyOrderElementsOf(cluster.primaries());
		assertThat(recordsByPrimary.values()).allSatisfy((records) -> assertThat(records).isGreaterThan(5));
	}

}
