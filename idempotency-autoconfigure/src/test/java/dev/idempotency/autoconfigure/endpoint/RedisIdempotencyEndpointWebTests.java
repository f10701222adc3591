package dev.idempotency.autoconfigure.endpoint;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.test.redis.TestRedis;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the idempotency endpoint over HTTP on the Redis store, against a real Redis.
 */
class RedisIdempotencyEndpointWebTests extends IdempotencyEndpointWebTests {

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-endpoint-test:");
		registry.add("spring.data.redis.host", () -> TestRedis.get().host());
		registry.add("spring.data.redis.port", () -> TestRedis.get().port());
		registry.add("spring.data.redis.timeout", () -> "5s");
	}

	@Override
	protected String storeType() {
		return "redis";
	}

	@Test
	void listingShowsTheKeyPrefix() throws Exception {
		JsonNode listing = JsonMapper.shared().readTree(get("/actuator/idempotency").body());
		assertThat(listing.at("/store/keyPrefix").asString()).isEqualTo("idempotency-endpoint-test:");
	}

	@Test
	void healthTellsWhichScriptsRedisHasLoaded() throws Exception {
		get("/actuator/idempotency/Payments.charge/anything");
		HttpResponse<String> response = get("/actuator/health/idempotency");
		JsonNode scripts = JsonMapper.shared().readTree(response.body()).at("/details/scripts");
		assertThat(scripts.propertyNames()).containsExactly("acquire", "complete", "release", "renew", "read");
		assertThat(scripts.get("read").asBoolean()).isTrue();
	}

}
