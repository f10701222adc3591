package dev.idempotency.actuate.health;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.RedisServerProcess;
import dev.idempotency.test.TestRedis;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * Tests for {@link IdempotencyHealthIndicator}.
 */
class IdempotencyHealthIndicatorTests {

	@Test
	void memoryStoreIsUp() {
		Health health = new IdempotencyHealthIndicator(new InMemoryIdempotencyStore()).health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsExactly(entry("store", "memory"));
	}

	@Test
	void redisStoreIsUpAndTellsWhichScriptsAreLoaded() {
		try (RedisServerProcess server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			try {
				RedisIdempotencyStore store = new RedisIdempotencyStore(factory, "idempotency:");
				IdempotencyHealthIndicator indicator = new IdempotencyHealthIndicator(store);
				Health health = indicator.health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("store", "redis");
				assertThat(health.getDetails().get("scripts")).isEqualTo(
						Map.of("acquire", false, "complete", false, "release", false, "renew", false, "read", true));
				store.acquire(new RecordKey("Payments.charge", "a"),
						new AcquireRequest("owner", Duration.ofSeconds(30), Duration.ofMinutes(1), null));
				assertThat(indicator.health().getDetails().get("scripts")).isEqualTo(
						Map.of("acquire", true, "complete", false, "release", false, "renew", false, "read", true));
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void redisStoreIsDownWithTheCauseWhenTheServerIsStoppedAndUpWhenItIsBack() throws InterruptedException {
		try (RedisServerProcess server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			try {
				IdempotencyHealthIndicator indicator = new IdempotencyHealthIndicator(
						new RedisIdempotencyStore(factory, "idempotency:"));
				assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
				server.stop();
				Health down = indicator.health();
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails()).containsEntry("store", "redis")
					.containsKeys("error", "cause")
					.doesNotContainKey("scripts");
				assertThat((String) down.getDetails().get("error"))
					.startsWith("dev.idempotency.IdempotencyStoreException");
				server.restart();
				assertThat(awaitUp(indicator).getDetails()).containsKey("scripts");
			}
			finally {
				factory.destroy();
			}
		}
	}

	private static Health awaitUp(IdempotencyHealthIndicator indicator) throws InterruptedException {
		long deadline = System.nanoTime() + 30_000_000_000L;
		Health health = indicator.health();
		while (health.getStatus() != Status.UP && System.nanoTime() < deadline) {
			Thread.sleep(100);
			health = indicator.health();
		}
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		return health;
	}

}
