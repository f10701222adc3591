package dev.idempotency.engine;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

class RedisFailureReplayEngineTests extends FailureReplayEngineTests {

	@Override
	protected IdempotencyStore createStore() {
		return new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency:");
	}

}
