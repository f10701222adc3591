package dev.idempotency.actuate.health;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;

import org.springframework.boot.health.contributor.Health;

/**
 * Health details only the Redis store has; a class of its own so that it is loaded only
 * when Spring Data Redis is on the class path.
 */
final class RedisStoreDetails {

	private RedisStoreDetails() {
	}

	static void add(IdempotencyStore store, Health.Builder builder) {
		if (store instanceof RedisIdempotencyStore redis) {
			builder.withDetail("scripts", redis.scriptsLoaded());
		}
	}

}
