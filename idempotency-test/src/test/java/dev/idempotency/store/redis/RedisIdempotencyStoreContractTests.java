package dev.idempotency.store.redis;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.redis.TestRedis;
import dev.idempotency.test.store.IdempotencyStoreContractTests;

class RedisIdempotencyStoreContractTests extends IdempotencyStoreContractTests {

	@Override
	protected IdempotencyStore createStore() {
		return new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency-test:");
	}

}
