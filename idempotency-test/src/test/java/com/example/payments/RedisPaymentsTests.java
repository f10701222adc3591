package com.example.payments;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.AbandonedAttempt;
import dev.idempotency.test.ConcurrentCalls;
import dev.idempotency.test.StoreScenarios;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kit against the application's own Redis store, reached through
 * {@code spring.data.redis.url}.
 */
@SpringBootTest(properties = "idempotency.store=redis")
class RedisPaymentsTests {

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> TestRedis.get().url());
	}

	@Autowired
	Payments payments;

	@Autowired
	Gateway gateway;

	@Autowired
	IdempotencyStore store;

	@Test
	void storeIsRedis() {
		assertThat(this.store).isInstanceOf(RedisIdempotencyStore.class);
	}

	@Test
	void duplicatesArrivingTogetherChargeOnce() {
		String order = UUID.randomUUID().toString();
		ConcurrentCalls.run(16, () -> this.payments.charge(order, 1250))
			.assertExecutedOnce(() -> this.gateway.charges(order));
	}

	@Test
	void aZombieCannotOverwriteTheChargeThatReplacedIt() {
		String order = UUID.randomUUID().toString();
		AbandonedAttempt zombie = StoreScenarios.zombieAttempt(this.store, "Payments.charge", order,
				() -> this.payments.charge(order, 1250));
		assertThat(zombie.complete()).isFalse();
		assertThat(zombie.release()).isFalse();
		assertThat(this.payments.charge(order, 1250).fence()).isEqualTo(zombie.fence() + 1);
		assertThat(this.gateway.charges(order)).isEqualTo(1);
	}

}
