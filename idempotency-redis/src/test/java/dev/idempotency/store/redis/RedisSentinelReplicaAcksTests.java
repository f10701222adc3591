package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import dev.idempotency.test.redis.RedisSentinels;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Replica acknowledgements through Sentinel: the store's own connections find the primary
 * through the sentinels, and find the new one after a failover, which keeps what the
 * replica acknowledged.
 */
class RedisSentinelReplicaAcksTests {

	private static final String PREFIX = "idempotency-sentinel-acks:";

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	@Test
	void acknowledgedRecordsSurviveAFailoverAndWaitsFollowTheNewPrimary() {
		try (RedisSentinels sentinels = TestRedis.startSentinels()) {
			LettuceConnectionFactory factory = sentinels.newConnectionFactory();
			try {
				RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX,
						RedisIdempotencyStore.DEFAULT_COMMAND_TIMEOUT, new ReplicaAcks(1, Duration.ofSeconds(5)));
				RedisServer replica = sentinels.replica();
				RecordKey completed = newKey();
				assertThat(store.acquire(completed, request("a"))).isEqualTo(new Acquired(1, false));
				assertThat(store.complete(completed, "a", 1, StoredResult.of(bytes("result")), RETENTION)).isTrue();
				assertThat(get(replica, completed)).isNotNull();
				RedisServer promoted = sentinels.failover();
				assertThat(promoted).isEqualTo(replica);
				RecordKey after = newKey();
				await().atMost(Duration.ofSeconds(30))
					.ignoreExceptionsInstanceOf(IdempotencyStoreException.class)
					.until(() -> store.acquire(after, request("b")) instanceof Acquired);
				assertThat(get(promoted, after)).isNotNull();
				// The former primary acknowledged the write as a replica; the sentinels
				// call it one only after their next look at it, up to a second later.
				RedisServer demoted = await().atMost(Duration.ofSeconds(30))
					.ignoreExceptionsInstanceOf(IllegalStateException.class)
					.until(sentinels::replica, (server) -> server != promoted);
				assertThat(get(demoted, after)).isNotNull();
				assertThat(store.acquire(completed, request("c"))).isInstanceOf(Completed.class);
			}
			finally {
				factory.destroy();
			}
		}
	}

	private static byte[] get(RedisServer server, RecordKey key) {
		LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
		try (RedisConnection connection = factory.getConnection()) {
			return connection.stringCommands().get(bytes(PREFIX + key.name() + ":" + key.key()));
		}
		finally {
			factory.destroy();
		}
	}

	private static RecordKey newKey() {
		return new RecordKey("acks", UUID.randomUUID().toString());
	}

	private static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, LEASE, RETENTION, null);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
