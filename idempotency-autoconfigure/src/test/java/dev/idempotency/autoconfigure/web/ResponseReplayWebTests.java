package dev.idempotency.autoconfigure.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.TestRedis;
import dev.idempotency.web.IdempotencyProblems;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of what a replayed response of a request handler carries, over real HTTP on a
 * real Redis, run for each web stack and configuration by a subclass.
 */
abstract class ResponseReplayWebTests {

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@LocalServerPort
	private int port;

	@Autowired
	private Responses responses;

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-replay-test:");
		registry.add("spring.data.redis.host", () -> TestRedis.get().host());
		registry.add("spring.data.redis.port", () -> TestRedis.get().port());
	}

	/**
	 * Return whether the configuration lists {@code X-Custom} as a replayed header.
	 */
	abstract boolean replaysCustomHeader();

	/**
	 * Return whether the configuration replays returned server errors.
	 */
	abstract boolean replaysServerErrors();

	@Test
	void runsOnTheServerOfItsStack(@Autowired WebServerApplicationContext context) {
		WebServers.assertServesItsStack(context);
	}

	@Test
	void replayCarriesContentTypeAndTheAllowedHeadersButNeverTheFirstCallersCookie() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<byte[]> first = post("/cookies", key);
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(first.headers().allValues("Set-Cookie")).containsExactly("session=" + key);
		assertThat(first.headers().firstValue("Location")).hasValue("/receipts/" + key);
		assertThat(first.headers().firstValue("X-Custom")).hasValue("custom-" + key);
		assertThat(first.headers().firstValue("Content-Type")).hasValue("text/plain;charset=UTF-8");
		HttpResponse<byte[]> retry = post("/cookies", key);
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.headers().firstValue("Location")).hasValue("/receipts/" + key);
		assertThat(retry.headers().firstValue("Content-Type")).hasValue("text/plain;charset=UTF-8");
		assertThat(retry.headers().allValues("Set-Cookie")).isEmpty();
		assertThat(retry.headers().firstValue("X-Custom"))
			.isEqualTo(replaysCustomHeader() ? first.headers().firstValue("X-Custom") : java.util.Optional.empty());
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(this.responses.executions(key)).isEqualTo(1);
	}

	@ParameterizedTest
	@ValueSource(strings = { "/outage", "/deferred-outage", "/future-outage" })
	void returnedServerErrorIsReleasedForARetryUnlessServerErrorsAreReplayed(String path) throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<byte[]> first = post(path, key);
		assertThat(first.statusCode()).isEqualTo(503);
		assertThat(first.headers().firstValue("Retry-After")).hasValue("7");
		assertThat(new String(first.body())).isEqualTo("outage 1");
		HttpResponse<byte[]> retry = post(path, key);
		if (replaysServerErrors()) {
			assertThat(retry.statusCode()).isEqualTo(503);
			assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
			assertThat(retry.body()).isEqualTo(first.body());
			assertThat(this.responses.executions(key)).isEqualTo(1);
		}
		else {
			assertThat(retry.statusCode()).isEqualTo(201);
			assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
			assertThat(new String(retry.body())).isEqualTo("paid 2");
			assertThat(this.responses.executions(key)).isEqualTo(2);
			HttpResponse<byte[]> replay = post(path, key);
			assertThat(replay.statusCode()).isEqualTo(201);
			assertThat(replay.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
			assertThat(replay.body()).isEqualTo(retry.body());
			assertThat(this.responses.executions(key)).isEqualTo(2);
		}
	}

	@Test
	void returnedClientErrorIsReplayed() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<byte[]> first = post("/rejections", key);
		assertThat(first.statusCode()).isEqualTo(422);
		HttpResponse<byte[]> retry = post("/rejections", key);
		assertThat(retry.statusCode()).isEqualTo(422);
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(this.responses.executions(key)).isEqualTo(1);
	}

	private HttpResponse<byte[]> post(String path, String key) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.header("Content-Type", "application/json")
			.header(IdempotencyProblems.KEY_HEADER, key)
			.POST(HttpRequest.BodyPublishers.ofString("{\"account\":\"acc\",\"amount\":1}"))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofByteArray());
	}

	record PayRequest(String account, long amount) {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Responses.class)
	static class TestApplication {

	}

	@RestController
	static class Responses {

		private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();

		@PostMapping("/cookies")
		@Idempotent(name = "replay.cookies")
		ResponseEntity<String> cookies(@RequestBody PayRequest request, @RequestHeader("Idempotency-Key") String key) {
			count(key);
			return ResponseEntity.created(URI.create("/receipts/" + key))
				.header(HttpHeaders.SET_COOKIE, "session=" + key)
				.header("X-Custom", "custom-" + key)
				.contentType(MediaType.parseMediaType("text/plain;charset=UTF-8"))
				.body("paid " + request.amount() + " " + UUID.randomUUID());
		}

		// A downstream outage on the first call of a key, a success on the next ones
		@PostMapping("/outage")
		@Idempotent(name = "replay.outage")
		ResponseEntity<String> outage(@RequestBody PayRequest request, @RequestHeader("Idempotency-Key") String key) {
			return outcome(count(key));
		}

		@PostMapping("/deferred-outage")
		@Idempotent(name = "replay.deferred-outage")
		Mono<ResponseEntity<String>> deferredOutage(@RequestBody PayRequest request,
				@RequestHeader("Idempotency-Key") String key) {
			return Mono.fromSupplier(() -> outcome(count(key)));
		}

		@PostMapping("/future-outage")
		@Idempotent(name = "replay.future-outage")
		CompletableFuture<ResponseEntity<String>> futureOutage(@RequestBody PayRequest request,
				@RequestHeader("Idempotency-Key") String key) {
			return CompletableFuture.supplyAsync(() -> outcome(count(key)));
		}

		@PostMapping("/rejections")
		@Idempotent(name = "replay.rejections")
		ResponseEntity<String> rejection(@RequestBody PayRequest request,
				@RequestHeader("Idempotency-Key") String key) {
			return ResponseEntity.unprocessableContent()
				.contentType(MediaType.TEXT_PLAIN)
				.body("rejected " + count(key) + " " + UUID.randomUUID());
		}

		private static ResponseEntity<String> outcome(int execution) {
			if (execution == 1) {
				return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
					.header(HttpHeaders.RETRY_AFTER, "7")
					.contentType(MediaType.TEXT_PLAIN)
					.body("outage " + execution);
			}
			return ResponseEntity.status(HttpStatus.CREATED)
				.contentType(MediaType.TEXT_PLAIN)
				.body("paid " + execution);
		}

		private int count(String key) {
			return this.executions.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
		}

		int executions(String key) {
			AtomicInteger count = this.executions.get(key);
			return (count != null) ? count.get() : 0;
		}

	}

}
