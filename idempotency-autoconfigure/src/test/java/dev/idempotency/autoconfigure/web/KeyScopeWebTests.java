package dev.idempotency.autoconfigure.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.autoconfigure.web.RequestFingerprintWebTests.Charges;
import dev.idempotency.test.redis.TestRedis;
import dev.idempotency.web.IdempotencyProblems;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of an application's key scope resolver, which scopes keys by the
 * {@value #API_KEY_HEADER} header, over real HTTP on a real Redis, run for each web stack
 * by a subclass that defines the resolver.
 */
abstract class KeyScopeWebTests {

	static final String API_KEY_HEADER = "X-Api-Key";

	private static final JsonMapper json = JsonMapper.shared();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@LocalServerPort
	private int port;

	@Autowired
	private Charges charges;

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-scope-test:");
		registry.add("spring.data.redis.host", () -> TestRedis.get().host());
		registry.add("spring.data.redis.port", () -> TestRedis.get().port());
	}

	@Test
	void runsOnTheServerOfItsStack(@Autowired WebServerApplicationContext context) {
		WebServers.assertServesItsStack(context);
	}

	@Test
	void twoApiKeysWithTheSameIdempotencyKeyDoNotSeeEachOthersRecords() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = charge("api-1", key, "111", 10);
		HttpResponse<byte[]> second = charge("api-2", key, "222", 20);
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(second.statusCode()).isEqualTo(201);
		assertThat(second.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
		assertThat(json.readTree(second.body()).get("account").asString()).isEqualTo("222");
		HttpResponse<byte[]> firstRetry = charge("api-1", key, "111", 10);
		HttpResponse<byte[]> secondRetry = charge("api-2", key, "222", 20);
		assertThat(firstRetry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(firstRetry.body()).isEqualTo(first.body());
		assertThat(secondRetry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(secondRetry.body()).isEqualTo(second.body());
		assertThat(this.charges.executions(key)).isEqualTo(2);
	}

	@Test
	void requestsWithoutAnApiKeyShareOneScope() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = charge(null, key, "111", 10);
		assertThat(first.statusCode()).isEqualTo(201);
		HttpResponse<byte[]> other = charge(null, key, "111", 10);
		assertThat(other.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(other.body()).isEqualTo(first.body());
		assertThat(charge("api-1", key, "111", 10).headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
		assertThat(this.charges.executions(key)).isEqualTo(2);
	}

	private HttpResponse<byte[]> charge(String apiKey, String key, String account, long amount) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri("/accounts/" + account + "/charge"))
			.header("Content-Type", "application/json")
			.header(IdempotencyProblems.KEY_HEADER, key)
			.POST(HttpRequest.BodyPublishers.ofString("{\"amount\":" + amount + "}"));
		if (apiKey != null) {
			request.header(API_KEY_HEADER, apiKey);
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

	private static String newKey() {
		return UUID.randomUUID().toString();
	}

}
