package dev.idempotency.engine;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.RedisCluster;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine on the shared Redis Cluster, whose keys spread over three primaries.
 */
class RedisClusterIdempotencyEngineTests extends IdempotencyEngineTests {

	private static final String PREFIX = "idempotency:";

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

	// Renewals are sent without waiting, each on the connection to its key's primary:
	// every one must land, whichever primary it goes to.
	@Test
	void runningAttemptsOnEveryPrimaryKeepTheirLeases() {
		IdempotencyStore store = createStore();
		Duration lease = Duration.ofSeconds(2);
		Duration retention = Duration.ofMinutes(5);
		String name = "cluster-crowd-" + UUID.randomUUID();
		List<Attempt> attempts;
		try (LeaseRenewer renewer = new LeaseRenewer(store);
				LeaseCrowd crowd = LeaseCrowd.start(store, renewer, name, 3_000, lease, retention)) {
			awaitStoreTime(lease.multipliedBy(2));
			crowd.assertEveryLeaseHeld(store);
			attempts = crowd.attempts();
		}
		assertThat(primariesOf(attempts.subList(0, 60)).keySet())
			.containsExactlyInAnyOrderElementsOf(TestRedis.cluster().primaries());
	}

	private static Map<RedisServer, Integer> primariesOf(List<Attempt> attempts) {
		RedisCluster cluster = TestRedis.cluster();
		Map<RedisServer, Integer> attemptsByPrimary = new HashMap<>();
		for (Attempt attempt : attempts) {
			RecordKey key = attempt.record();
			byte[] redisKey = (PREFIX + key.name() + ":" + key.key()).getBytes(StandardCharsets.UTF_8);
			attemptsByPrimary.merge(cluster.primaryOf(redisKey), 1, Integer::sum);
		}
		return attemptsByPrimary;
	}

}
