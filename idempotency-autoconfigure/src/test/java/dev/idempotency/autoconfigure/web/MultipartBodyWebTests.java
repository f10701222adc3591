package dev.idempotency.autoconfigure.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.test.redis.TestRedis;
import dev.idempotency.web.IdempotencyProblems;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of request handlers that read a multipart body themselves, whole or by parts,
 * when the request carries the key header, over real HTTP on a real Redis, run for each
 * web stack by a subclass, which maps the handlers under {@code /parts/} in its stack's
 * own way.
 */
abstract class MultipartBodyWebTests {

	private static final JsonMapper json = JsonMapper.shared();

	private static final String BOUNDARY = "b0undary";

	@LocalServerPort
	private int port;

	@Autowired
	private Executions executions;

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-multipart-body-test:");
		registry.add("spring.data.redis.host", () -> TestRedis.get().host());
		registry.add("spring.data.redis.port", () -> TestRedis.get().port());
	}

	@Test
	void multipartBodyOfAHandlerThatIsNotIdempotentIsReadWithTheKeyHeader() throws Exception {
		HttpResponse<String> withKey = send(multipart("/parts/plain", newKey(), "alice", "12345"));
		assertThat(withKey.statusCode()).isEqualTo(200);
		assertThat(withKey.body()).isEqualTo("account=alice,file=a.txt:5");
		HttpResponse<String> withoutKey = send(multipart("/parts/plain", null, "alice", "12345"));
		assertThat(withoutKey.statusCode()).isEqualTo(200);
		assertThat(withoutKey.body()).isEqualTo(withKey.body());
	}

	@Test
	void multipartBodyOfAnIdempotentHandlerWithAKeyExpressionIsReadAndItsRetryReplays() throws Exception {
		String key = newKey();
		HttpResponse<String> first = send(multipart("/parts/body", key, "alice", "12345"));
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(receipt(first).get("account").asString()).isEqualTo("alice");
		assertThat(receipt(first).get("amount").asLong()).isEqualTo(5);
		assertReplayOf(send(multipart("/parts/body", key, "alice", "12345")), first);
		assertThat(this.executions.of(key)).isEqualTo(1);
	}

	@Test
	void requestPartsOfAnIdempotentHandlerWithAKeyExpressionAreReadAndItsRetryReplays() throws Exception {
		String key = newKey();
		HttpResponse<String> first = send(multipart("/parts/each", key, "alice", "123"));
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(receipt(first).get("account").asString()).isEqualTo("alice");
		assertThat(receipt(first).get("amount").asLong()).isEqualTo(3);
		assertReplayOf(send(multipart("/parts/each", key, "alice", "123")), first);
		assertThat(this.executions.of(key)).isEqualTo(1);
	}

	@Test
	void multipartFieldsOfAHandlerKeyedByTheHeaderAreFingerprinted() throws Exception {
		String key = newKey();
		HttpResponse<String> first = send(multipart("/parts/fields", key, "alice", "12345"));
		assertThat(first.statusCode()).isEqualTo(201);
		assertReplayOf(send(multipart("/parts/fields", key, "alice", "12345")), first);
		HttpResponse<String> mallory = send(multipart("/parts/fields", key, "mallory", "12345"));
		assertThat(mallory.statusCode()).isEqualTo(422);
		assertThat(json.readTree(mallory.body()).get("type").asString()).isEqualTo(IdempotencyProblems.KEY_REUSED);
		assertThat(this.executions.of(key)).isEqualTo(1);
	}

	private static JsonNode receipt(HttpResponse<String> response) {
		return json.readTree(response.body());
	}

	private static void assertReplayOf(HttpResponse<String> retry, HttpResponse<String> first) {
		assertThat(retry.statusCode()).isEqualTo(first.statusCode());
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.body()).isEqualTo(first.body());
	}

	private HttpRequest multipart(String path, String key, String account, String file) {
		String body = "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"account\"\r\n\r\n" + account
				+ "\r\n--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n"
				+ "Content-Type: text/plain\r\n\r\n" + file + "\r\n--" + BOUNDARY + "--\r\n";
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
			.POST(HttpRequest.BodyPublishers.ofString(body));
		if (key != null) {
			request.header(IdempotencyProblems.KEY_HEADER, key);
		}
		return request.build();
	}

	// A connection of its own for each: Reactor Netty may close one after a multipart
	// request whose epilogue its parser leaves unread, under a client reusing it
	private static HttpResponse<String> send(HttpRequest request) throws Exception {
		HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
		return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

	private static String newKey() {
		return UUID.randomUUID().toString();
	}

	record Receipt(String id, String account, long amount) {

	}

	/**
	 * The number of times each key's handler ran.
	 */
	static class Executions {

		private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

		ResponseEntity<Receipt> created(String key, String account, long amount) {
			this.counts.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
			return ResponseEntity.created(URI.create("/receipts/" + key))
				.body(new Receipt(UUID.randomUUID().toString(), account, amount));
		}

		int of(String key) {
			AtomicInteger count = this.counts.get(key);
			return (count != null) ? count.get() : 0;
		}

	}

}
