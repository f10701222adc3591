package dev.idempotency.test.autoconfigure;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import dev.idempotency.autoconfigure.IdempotencyProperties.StoreType;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store that {@link AutoConfigureIdempotency} chooses, in an application whose own
 * configuration asks for Redis.
 */
class AutoConfigureIdempotencyStoreTests {

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> TestRedis.get().url());
	}

	@Nested
	@SpringBootTest(classes = Application.class, properties = "spring.config.name=redis-application")
	@AutoConfigureIdempotency
	class Default {

		@Test
		void memoryWinsOverTheApplicationsConfiguration(@Autowired IdempotencyStore store,
				@Autowired ConfigurableEnvironment environment) {
			assertThat(environment.getPropertySources().stream())
				.filteredOn((source) -> source.getName().contains("redis-application.properties"))
				.singleElement()
				.satisfies((source) -> assertThat(source.getProperty("idempotency.store")).hasToString("redis"));
			assertThat(store).isInstanceOf(InMemoryIdempotencyStore.class);
		}

	}

	@Nested
	@SpringBootTest(classes = Application.class, properties = "spring.config.name=redis-application")
	@AutoConfigureIdempotency(store = StoreType.REDIS)
	class Redis {

		@Test
		void redisWhenAskedFor(@Autowired IdempotencyStore store) {
			assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}
