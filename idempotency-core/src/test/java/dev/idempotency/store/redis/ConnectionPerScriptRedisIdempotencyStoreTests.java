package dev.idempotency.store.redis;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.IdempotencyStoreContractTests;
import dev.idempotency.test.redis.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract on a connection per script, as with any client other than Lettuce (Jedis):
 * every script runs on a connection taken from the factory for it.
 */
class ConnectionPerScriptRedisIdempotencyStoreTests extends IdempotencyStoreContractTests {

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
				new ConnectionScriptRunner(connectionFactory));
	}

	@Test
	void aLettuceFactoryThatSharesNoConnectionStillGetsOneConnectionOfTheStoresOwn() {
		assertThat(ScriptRunner.of(connectionFactory)).isInstanceOf(LettuceScriptRunner.class);
	}

}
