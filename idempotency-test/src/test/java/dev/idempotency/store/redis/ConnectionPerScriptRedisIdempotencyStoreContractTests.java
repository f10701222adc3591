package dev.idempotency.store.redis;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.redis.TestRedis;
import dev.idempotency.test.store.IdempotencyStoreContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The contract on a connection per script, as with any client other than Lettuce (Jedis):
 * every script runs on a connection taken from the factory for it.
 */
class ConnectionPerScriptRedisIdempotencyStoreContractTests extends IdempotencyStoreContractTests {

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void createConnectionFactory() {
		connectionFactory = TestRedis.get().newConnectionFactory();
		connectionFactory.setShareNativeConnection(false);
	}

	@AfterAll
	static void destroyConnectionFactory() {
		connectionFactory.destroy();
	}

	@Override
	protected IdempotencyStore createStore() {
		return new RedisIdempotencyStore(connectionFactory, "idempotency-test:",
				new ConnectionScriptRunner(connectionFactory, RedisIdempotencyStore.DEFAULT_COMMAND_TIMEOUT));
	}

}
