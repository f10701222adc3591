package dev.idempotency.autoconfigure.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.Idempotent;
import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import dev.idempotency.web.IdempotencyProblems;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.annotation.Lazy;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests of idempotent request handlers over real HTTP on a real Redis, run for each web
 * stack by a subclass.
 */
abstract class IdempotentHandlerWebTests {

	static final String USER_HEADER = "X-Test-User";

	private static final JsonMapper json = JsonMapper.shared();

	private static RedisServer redis;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@LocalServerPort
	private int port;

	@Autowired
	private Payments payments;

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-web-test:");
		registry.add("idempotency.lock-timeout", () -> "30s");
		registry.add("spring.data.redis.host", () -> redis().host());
		registry.add("spring.data.redis.port", () -> redis().port());
		registry.add("spring.data.redis.timeout", () -> "5s");
	}

	// A server of this class's own, which a test stops
	private static synchronized RedisServer redis() {
		if (redis == null) {
			redis = TestRedis.startPrivateServer();
		}
		return redis;
	}

	@AfterAll
	static synchronized void stopRedis() {
		if (redis != null) {
			redis.close();
			redis = null;
		}
	}

	@Test
	void runsOnTheServerOfItsStack(@Autowired WebServerApplicationContext context) {
		WebServers.assertServesItsStack(context);
	}

	@Test
	void retryReplaysStatusHeadersAndTheSameBodyBytes() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = post("/payments", key, null, "{\"account\":\"acc-1\",\"amount\":1250}");
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(first.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
		String location = first.headers().firstValue("Location").orElseThrow();
		JsonNode receipt = json.readTree(first.body());
		assertThat(location).isEqualTo("/payments/" + receipt.get("id").asString());
		assertThat(receipt.get("amount").asLong()).isEqualTo(1250);
		HttpResponse<byte[]> retry = post("/payments", key, null, "{\"account\":\"acc-1\",\"amount\":1250}");
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.headers().firstValue("Location")).hasValue(location);
		assertThat(retry.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(this.payments.executions(key)).isEqualTo(1);
	}

	@Test
	void retryOfHandlerReturningAMonoReplaysItsResponseEntityMarkedReplayed() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = post("/deferred", key, null, "{\"account\":\"acc-3\",\"amount\":9}");
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(first.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
		HttpResponse<byte[]> retry = post("/deferred", key, null, "{\"account\":\"acc-3\",\"amount\":9}");
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(this.payments.executions(key)).isEqualTo(1);
	}

	@Test
	void retryOfHandlerReturningABodyReplaysItWithItsResponseStatus() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = post("/notes/n-1", key, null, "{\"account\":\"acc-2\",\"amount\":7}");
		assertThat(first.statusCode()).isEqualTo(202);
		HttpResponse<byte[]> retry = post("/notes/n-1", key, null, "{\"account\":\"acc-2\",\"amount\":7}");
		assertThat(retry.statusCode()).isEqualTo(202);
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(this.payments.executions(key)).isEqualTo(1);
	}

	@Test
	void retryOfHandlerOfFormDataReplays() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = send(form(key));
		HttpResponse<byte[]> retry = send(form(key));
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(json.readTree(first.body()).get("account").asString()).isEqualTo("acc-form");
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(this.payments.executions(key)).isEqualTo(1);
	}

	private HttpRequest form(String key) {
		return HttpRequest.newBuilder(uri("/forms"))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.header(IdempotencyProblems.KEY_HEADER, key)
			.POST(HttpRequest.BodyPublishers.ofString("account=acc-form&amount=4"))
			.build();
	}

	@Test
	void retryOfHandlerWithAKeyExpressionIsMarkedReplayedToo() throws Exception {
		String order = newKey();
		HttpResponse<byte[]> first = send(HttpRequest.newBuilder(uri("/orders/" + order))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"account\":\"acc-k\",\"amount\":2}"))
			.build());
		HttpResponse<byte[]> retry = send(HttpRequest.newBuilder(uri("/orders/" + order))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"account\":\"acc-k\",\"amount\":2}"))
			.build());
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(first.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(this.payments.executions(order)).isEqualTo(1);
	}

	@Test
	void replayOfAMethodThatAHandlerCallsDoesNotMarkTheResponse() throws Exception {
		String id = newKey();
		HttpResponse<byte[]> first = send(HttpRequest.newBuilder(uri("/lookups/" + id)).GET().build());
		HttpResponse<byte[]> second = send(HttpRequest.newBuilder(uri("/lookups/" + id)).GET().build());
		assertThat(second.statusCode()).isEqualTo(200);
		assertThat(second.body()).isEqualTo(first.body());
		assertThat(second.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
		assertThat(this.payments.executions("lookup-" + id)).isEqualTo(1);
	}

	@Test
	void retryWhileTheFirstRequestRunsIsConflictWithRetryAfter() throws Exception {
		String key = newKey();
		CountDownLatch release = this.payments.hold(key);
		CompletableFuture<HttpResponse<byte[]>> first = this.http.sendAsync(
				request("/payments", key, null, "{\"account\":\"acc-3\",\"amount\":5}"),
				HttpResponse.BodyHandlers.ofByteArray());
		try {
			assertThat(this.payments.entered(key).await(30, TimeUnit.SECONDS)).isTrue();
			HttpResponse<byte[]> retry = post("/payments", key, null, "{\"account\":\"acc-3\",\"amount\":5}");
			assertThat(retry.statusCode()).isEqualTo(409);
			assertProblem(retry, IdempotencyProblems.IN_PROGRESS, 409);
			long retryAfter = Long.parseLong(retry.headers().firstValue("Retry-After").orElseThrow());
			assertThat(retryAfter).isBetween(1L, 30L);
		}
		finally {
			release.countDown();
		}
		assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
		assertThat(this.payments.executions(key)).isEqualTo(1);
	}

	@Test
	void sameKeyWithAnotherBodyIsUnprocessable() throws Exception {
		String key = newKey();
		assertThat(post("/payments", key, null, "{\"account\":\"acc-4\",\"amount\":100}").statusCode()).isEqualTo(201);
		HttpResponse<byte[]> reused = post("/payments", key, null, "{\"account\":\"acc-4\",\"amount\":999}");
		assertThat(reused.statusCode()).isEqualTo(422);
		assertProblem(reused, IdempotencyProblems.KEY_REUSED, 422);
		assertThat(this.payments.executions(key)).isEqualTo(1);
	}

	@ParameterizedTest
	@ValueSource(strings = { "text/plain", "application/xml", "text/html" })
	void problemKeepsItsStatusWhateverTheRequestAccepts(String accept) throws Exception {
		HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/payments"))
			.header("Content-Type", "application/json")
			.header("Accept", accept)
			.POST(HttpRequest.BodyPublishers.ofString("{\"account\":\"acc-5\",\"amount\":1}"))
			.build());
		assertThat(response.statusCode()).isEqualTo(400);
	}

	@Test
	void missingKeyHeaderIsBadRequest() throws Exception {
		int before = this.payments.total();
		HttpResponse<byte[]> response = send(HttpRequest.newBuilder(uri("/payments"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"account\":\"acc-5\",\"amount\":1}"))
			.build());
		assertThat(response.statusCode()).isEqualTo(400);
		assertProblem(response, IdempotencyProblems.INVALID_KEY, 400);
		assertThat(this.payments.total()).isEqualTo(before);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "   ", "\"\"", "\" \"", "\"unterminated", "\"bad\\escape\"" })
	void blankOrInvalidKeyHeaderIsBadRequest(String header) throws Exception {
		int before = this.payments.total();
		HttpResponse<byte[]> response = post("/payments", header, null, "{\"account\":\"acc-6\",\"amount\":1}");
		assertThat(response.statusCode()).isEqualTo(400);
		assertProblem(response, IdempotencyProblems.INVALID_KEY, 400);
		assertThat(this.payments.total()).isEqualTo(before);
	}

	@Test
	void quotedKeyIsTheSameKeyAsTheUnquotedOne() throws Exception {
		String key = newKey() + "\"q\\";
		String quoted = "\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
		HttpResponse<byte[]> first = post("/payments", quoted, null, "{\"account\":\"acc-7\",\"amount\":3}");
		assertThat(first.statusCode()).isEqualTo(201);
		HttpResponse<byte[]> retry = post("/payments", key, null, "{\"account\":\"acc-7\",\"amount\":3}");
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(this.payments.executions(key)).isEqualTo(1);
	}

	@Test
	void principalsWithTheSameKeyDoNotSeeEachOthersResponses() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> alice = post("/payments", key, "alice", "{\"account\":\"acc-a\",\"amount\":10}");
		HttpResponse<byte[]> bob = post("/payments", key, "bob", "{\"account\":\"acc-b\",\"amount\":20}");
		HttpResponse<byte[]> anonymous = post("/payments", key, null, "{\"account\":\"acc-c\",\"amount\":30}");
		// Keys and names that a principal-colon-key scheme would confuse with the ones
		// above
		HttpResponse<byte[]> aliceLookalike = post("/payments", "5:alice:" + key, null,
				"{\"account\":\"acc-a\",\"amount\":10}");
		HttpResponse<byte[]> otherAlice = post("/payments", key, "alice:x", "{\"account\":\"acc-e\",\"amount\":50}");
		HttpResponse<byte[]> aliceOtherKey = post("/payments", "x:" + key, "alice",
				"{\"account\":\"acc-f\",\"amount\":60}");
		for (HttpResponse<byte[]> response : List.of(alice, bob, anonymous, aliceLookalike, otherAlice,
				aliceOtherKey)) {
			assertThat(response.statusCode()).isEqualTo(201);
			assertThat(response.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
		}
		assertThat(json.readTree(bob.body()).get("account").asString()).isEqualTo("acc-b");
		HttpResponse<byte[]> aliceRetry = post("/payments", key, "alice", "{\"account\":\"acc-a\",\"amount\":10}");
		assertThat(aliceRetry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(aliceRetry.body()).isEqualTo(alice.body());
		assertThat(this.payments.executions(key)).isEqualTo(4);
		assertThat(this.payments.executions("x:" + key)).isEqualTo(1);
	}

	@Test
	void anonymousCallersShareOneKeySpace() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = post("/payments", key, null, "{\"account\":\"acc-z\",\"amount\":10}");
		HttpResponse<byte[]> other = HttpClient.newHttpClient()
			.send(request("/payments", key, null, "{\"account\":\"acc-z\",\"amount\":10}"),
					HttpResponse.BodyHandlers.ofByteArray());
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(other.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(other.body()).isEqualTo(first.body());
		assertThat(this.payments.executions(key)).isEqualTo(1);
	}

	@Test
	void stoppedStoreIsServiceUnavailable() throws Exception {
		redis().stop();
		try {
			HttpResponse<byte[]> response = post("/payments", newKey(), null, "{\"account\":\"acc-8\",\"amount\":1}");
			assertThat(response.statusCode()).isEqualTo(503);
			assertProblem(response, IdempotencyProblems.STORE_UNAVAILABLE, 503);
			assertThat(new String(response.body())).doesNotContain("idempotency-web-test:");
		}
		finally {
			redis().restart();
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> post("/payments", newKey(), null, "{\"account\":\"acc-8\",\"amount\":1}").statusCode() == 201);
	}

	@Test
	void applicationsOwnExceptionHandlerWinsOverTheDefaultMapping() throws Exception {
		HttpResponse<byte[]> response = post("/own-errors", "  ", null, "{\"account\":\"acc-9\",\"amount\":1}");
		assertThat(response.statusCode()).isEqualTo(418);
		assertThat(new String(response.body())).isEqualTo("own key problem");
	}

	@Test
	void handlerWithAPrincipalArgumentFindsItsRequest() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = post("/signed", key, "carol", "{\"account\":\"acc-s\",\"amount\":8}");
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(json.readTree(first.body()).get("account").asString()).isEqualTo("carol");
		HttpResponse<byte[]> retry = post("/signed", key, "carol", "{\"account\":\"acc-s\",\"amount\":8}");
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(this.payments.executions(key)).isEqualTo(1);
	}

	@Test
	void listedFailureIsReplayedThroughTheApplicationsExceptionHandlerAndMarked() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = post("/declines", key, null, "{\"account\":\"acc-d\",\"amount\":9}");
		assertThat(first.statusCode()).isEqualTo(402);
		assertThat(new String(first.body())).isEqualTo("declined: acc-d");
		assertThat(first.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
		HttpResponse<byte[]> retry = post("/declines", key, null, "{\"account\":\"acc-d\",\"amount\":9}");
		assertThat(retry.statusCode()).isEqualTo(402);
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(this.payments.executions(key)).isEqualTo(1);
	}

	@Test
	void listedFailureWithAResponseStatusIsReplayedThroughTheFrameworksErrorHandlingAndMarked() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = post("/limits", key, null, "{\"account\":\"acc-x\",\"amount\":9}");
		assertThat(first.statusCode()).isEqualTo(403);
		assertThat(first.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
		HttpResponse<byte[]> retry = post("/limits", key, null, "{\"account\":\"acc-x\",\"amount\":9}");
		assertThat(retry.statusCode()).isEqualTo(403);
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(this.payments.executions(key)).isEqualTo(1);
	}

	@Test
	void handlerWhoseRequestBodyIsDeclaredOnItsInterfaceFingerprintsIt() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = post("/transfers", key, null, "{\"account\":\"acc-t\",\"amount\":100}");
		assertThat(first.statusCode()).isEqualTo(201);
		HttpResponse<byte[]> reused = post("/transfers", key, null, "{\"account\":\"acc-t\",\"amount\":999}");
		assertThat(reused.statusCode()).isEqualTo(422);
		assertProblem(reused, IdempotencyProblems.KEY_REUSED, 422);
		HttpResponse<byte[]> retry = post("/transfers", key, null, "{\"account\":\"acc-t\",\"amount\":100}");
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(this.payments.executions(key)).isEqualTo(1);
	}

	@Test
	void emptyTextAndBinaryResponsesReplayTheSameBytes() throws Exception {
		for (String path : List.of("/empty", "/text", "/binary")) {
			String key = newKey();
			HttpResponse<byte[]> first = post(path, key, null, "{\"account\":\"acc-e\",\"amount\":1}");
			HttpResponse<byte[]> retry = post(path, key, null, "{\"account\":\"acc-e\",\"amount\":1}");
			assertThat(first.statusCode()).as(path).isEqualTo(path.equals("/empty") ? 204 : 200);
			assertThat(retry.statusCode()).as(path).isEqualTo(first.statusCode());
			assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).as(path).hasValue("true");
			assertThat(retry.headers().firstValue("Content-Type")).as(path)
				.isEqualTo(first.headers().firstValue("Content-Type"));
			assertThat(retry.body()).as(path).isEqualTo(first.body());
			assertThat(this.payments.executions(key)).as(path).isEqualTo(1);
		}
	}

	// Bodies of many chunks, so that handlers are called from a later signal, from
	// requests that interleave on few threads: a request that saw another's exchange
	// would be stored under the other's key and answered with the other's response
	@Test
	void interleavedRequestsWithLargeBodiesEachGetTheirOwnResponse() throws Exception {
		int count = 24;
		List<String> keys = new ArrayList<>();
		List<CompletableFuture<HttpResponse<byte[]>>> responses = new ArrayList<>();
		for (int round = 0; round < 2; round++) {
			responses.clear();
			for (int i = 0; i < count; i++) {
				if (round == 0) {
					keys.add(newKey());
				}
				String user = (i % 3 == 0) ? null : "user-" + (i % 2);
				String body = "{\"account\":\"" + keys.get(i) + "-" + "a".repeat(100_000) + "\",\"amount\":" + i + "}";
				responses.add(this.http.sendAsync(request("/echo", keys.get(i), user, body),
						HttpResponse.BodyHandlers.ofByteArray()));
			}
			for (int i = 0; i < count; i++) {
				HttpResponse<byte[]> response = responses.get(i).get(60, TimeUnit.SECONDS);
				assertThat(response.statusCode()).isEqualTo(201);
				JsonNode receipt = json.readTree(response.body());
				assertThat(receipt.get("id").asString()).isEqualTo(keys.get(i));
				assertThat(receipt.get("amount").asLong()).isEqualTo(i);
				assertThat(response.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER))
					.isEqualTo((round == 0) ? java.util.Optional.empty() : java.util.Optional.of("true"));
			}
		}
		for (String key : keys) {
			assertThat(this.payments.executions(key)).isEqualTo(1);
		}
	}

	@Test
	void keysAreCaseSensitiveAndALongKeyReplaysUnderItsDigest() throws Exception {
		String key = newKey() + "-AbC";
		String lower = key.toLowerCase(java.util.Locale.ROOT);
		// As long as a request may give, longer than the engine stores unhashed
		String longKey = key + "x".repeat(255 - key.length());
		for (String each : List.of(key, lower, longKey)) {
			HttpResponse<byte[]> first = post("/payments", each, null, "{\"account\":\"acc-l\",\"amount\":2}");
			assertThat(first.statusCode()).isEqualTo(201);
			assertThat(first.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
			HttpResponse<byte[]> retry = post("/payments", "  " + each + " ", null,
					"{\"account\":\"acc-l\",\"amount\":2}");
			assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
			assertThat(retry.body()).isEqualTo(first.body());
			assertThat(this.payments.executions(each)).isEqualTo(1);
		}
	}

	@Test
	void applicationsHandlerOfTheSuperclassWinsOverTheDefaultMapping() throws Exception {
		HttpResponse<byte[]> response = post("/broad-errors", "\"unterminated", null,
				"{\"account\":\"acc-10\",\"amount\":1}");
		assertThat(response.statusCode()).isEqualTo(418);
		assertThat(new String(response.body())).isEqualTo("own broad problem");
	}

	@Test
	void retryOfMultipartHandlerReplays() throws Exception {
		String key = newKey();
		// A connection of its own for each: Reactor Netty may close one after a multipart
		// request whose epilogue its parser leaves unread, under a client reusing it
		HttpResponse<byte[]> first = HttpClient.newHttpClient()
			.send(multipart(key), HttpResponse.BodyHandlers.ofByteArray());
		HttpResponse<byte[]> retry = HttpClient.newHttpClient()
			.send(multipart(key), HttpResponse.BodyHandlers.ofByteArray());
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(json.readTree(first.body()).get("account").asString()).isEqualTo("acc-multi");
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(this.payments.executions(key)).isEqualTo(1);
	}

	private HttpRequest multipart(String key) {
		String boundary = "b0undary";
		String body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"account\"\r\n\r\nacc-multi\r\n"
				+ "--" + boundary + "\r\nContent-Disposition: form-data; name=\"amount\"\r\n\r\n6\r\n" + "--" + boundary
				+ "--\r\n";
		return HttpRequest.newBuilder(uri("/multipart"))
			.header("Content-Type", "multipart/form-data; boundary=" + boundary)
			.header(IdempotencyProblems.KEY_HEADER, key)
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build();
	}

	private void assertProblem(HttpResponse<byte[]> response, String type, int status) throws IOException {
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((contentType) -> assertThat(contentType).startsWith("application/problem+json"));
		JsonNode problem = json.readTree(response.body());
		assertThat(problem.get("type").asString()).isEqualTo(type);
		assertThat(problem.get("status").asInt()).isEqualTo(status);
		assertThat(problem.get("title").asString()).isNotBlank();
		assertThat(problem.get("detail").asString()).isNotBlank();
	}

	private HttpResponse<byte[]> post(String path, String key, String user, String body) throws Exception {
		return send(request(path, key, user, body));
	}

	private HttpRequest request(String path, String key, String user, String body) {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.header(IdempotencyProblems.KEY_HEADER, key)
			.POST(HttpRequest.BodyPublishers.ofString(body));
		if (user != null) {
			request.header(USER_HEADER, user);
		}
		return request.build();
	}

	private HttpResponse<byte[]> send(HttpRequest request) throws IOException, InterruptedException {
		return this.http.send(request, HttpResponse.BodyHandlers.ofByteArray());
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

	private static String newKey() {
		return UUID.randomUUID().toString();
	}

	record PayRequest(String account, long amount) {

	}

	record Receipt(String id, String account, long amount) {

	}

	public static class CardDeclinedException extends RuntimeException {

		public CardDeclinedException(String message) {
			super(message);
		}

	}

	@ResponseStatus(HttpStatus.FORBIDDEN)
	public static class LimitExceededException extends RuntimeException {

		public LimitExceededException(String message) {
			super(message);
		}

	}

	static class Lookups {

		private final Payments payments;

		Lookups(@Lazy Payments payments) {
			this.payments = payments;
		}

		@Idempotent(name = "web.lookups", key = "#id")
		public Receipt find(String id) {
			this.payments.count("lookup-" + id);
			return new Receipt(UUID.randomUUID().toString(), id, 0);
		}

	}

	// An API interface that declares the mapping and the request body, as generated ones
	// do
	interface TransferApi {

		@PostMapping("/transfers")
		ResponseEntity<Receipt> transfer(@RequestBody PayRequest request,
				@RequestHeader(name = "Idempotency-Key", required = false) String key) throws InterruptedException;

	}

	@RestController
	static class Payments implements TransferApi {

		private final Lookups lookups;

		Payments(Lookups lookups) {
			this.lookups = lookups;
		}

		private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();

		private final AtomicInteger total = new AtomicInteger();

		private final Map<String, CountDownLatch> entered = new ConcurrentHashMap<>();

		private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

		@PostMapping("/payments")
		@Idempotent(name = "web.payments")
		ResponseEntity<Receipt> pay(@RequestBody PayRequest request,
				@RequestHeader(name = "Idempotency-Key", required = false) String key) throws InterruptedException {
			execute(key);
			Receipt receipt = new Receipt(UUID.randomUUID().toString(), request.account(), request.amount());
			return ResponseEntity.created(URI.create("/payments/" + receipt.id())).body(receipt);
		}

		@PostMapping("/deferred")
		@Idempotent(name = "web.deferred")
		Mono<ResponseEntity<Receipt>> deferred(@RequestBody PayRequest request,
				@RequestHeader(name = "Idempotency-Key", required = false) String key) {
			return Mono.fromCallable(() -> {
				execute(key);
				Receipt receipt = new Receipt(UUID.randomUUID().toString(), request.account(), request.amount());
				return ResponseEntity.created(URI.create("/deferred/" + receipt.id())).body(receipt);
			});
		}

		@PostMapping("/notes/{id}")
		@ResponseStatus(HttpStatus.ACCEPTED)
		@Idempotent(name = "web.notes")
		Receipt note(@PathVariable String id, @RequestBody PayRequest request,
				@RequestHeader(name = "Idempotency-Key", required = false) String key) throws InterruptedException {
			execute(key);
			return new Receipt(id + "-" + UUID.randomUUID(), request.account(), request.amount());
		}

		@PostMapping("/orders/{order}")
		@Idempotent(name = "web.orders", key = "#order")
		ResponseEntity<Receipt> order(@PathVariable String order, @RequestBody PayRequest request)
				throws InterruptedException {
			execute(order);
			return ResponseEntity.created(URI.create("/orders/" + order))
				.body(new Receipt(UUID.randomUUID().toString(), request.account(), request.amount()));
		}

		@PostMapping(path = "/forms", consumes = "application/x-www-form-urlencoded")
		@Idempotent(name = "web.forms")
		ResponseEntity<Receipt> form(@ModelAttribute PayRequest form,
				@RequestHeader(name = "Idempotency-Key", required = false) String key) throws InterruptedException {
			execute(key);
			return ResponseEntity.created(URI.create("/forms/1"))
				.body(new Receipt(UUID.randomUUID().toString(), form.account(), form.amount()));
		}

		@PostMapping("/signed")
		@Idempotent(name = "web.signed")
		ResponseEntity<Receipt> signed(@RequestBody PayRequest request, Principal principal,
				@RequestHeader(name = "Idempotency-Key", required = false) String key) throws InterruptedException {
			execute(key);
			return ResponseEntity.created(URI.create("/signed/1"))
				.body(new Receipt(UUID.randomUUID().toString(), principal.getName(), request.amount()));
		}

		@PostMapping("/declines")
		@Idempotent(name = "web.declines", replayFailures = CardDeclinedException.class)
		ResponseEntity<Receipt> decline(@RequestBody PayRequest request,
				@RequestHeader(name = "Idempotency-Key", required = false) String key) throws InterruptedException {
			execute(key);
			throw new CardDeclinedException("declined: " + request.account());
		}

		@PostMapping("/limits")
		@Idempotent(name = "web.limits", replayFailures = LimitExceededException.class)
		ResponseEntity<Receipt> limit(@RequestBody PayRequest request,
				@RequestHeader(name = "Idempotency-Key", required = false) String key) throws InterruptedException {
			execute(key);
			throw new LimitExceededException("limit exceeded: " + request.account());
		}

		@Override
		@Idempotent(name = "web.transfers")
		public ResponseEntity<Receipt> transfer(PayRequest request, String key) throws InterruptedException {
			execute(key);
			return ResponseEntity.created(URI.create("/transfers/1"))
				.body(new Receipt(UUID.randomUUID().toString(), request.account(), request.amount()));
		}

		@ExceptionHandler
		ResponseEntity<String> declined(CardDeclinedException ex) {
			return ResponseEntity.status(HttpStatus.PAYMENT_REQUIRED)
				.contentType(MediaType.TEXT_PLAIN)
				.body(ex.getMessage());
		}

		@PostMapping("/empty")
		@Idempotent(name = "web.empty")
		ResponseEntity<Void> empty(@RequestBody PayRequest request,
				@RequestHeader(name = "Idempotency-Key", required = false) String key) throws InterruptedException {
			execute(key);
			return ResponseEntity.noContent().build();
		}

		@PostMapping("/text")
		@Idempotent(name = "web.text")
		ResponseEntity<String> text(@RequestBody PayRequest request,
				@RequestHeader(name = "Idempotency-Key", required = false) String key) throws InterruptedException {
			execute(key);
			return ResponseEntity.ok().contentType(MediaType.TEXT_PLAIN).body("text \"" + UUID.randomUUID() + "\" é");
		}

		@PostMapping("/binary")
		@Idempotent(name = "web.binary")
		ResponseEntity<byte[]> binary(@RequestBody PayRequest request,
				@RequestHeader(name = "Idempotency-Key", required = false) String key) throws InterruptedException {
			execute(key);
			byte[] bytes = new byte[300];
			new java.util.Random().nextBytes(bytes);
			return ResponseEntity.ok().contentType(MediaType.APPLICATION_OCTET_STREAM).body(bytes);
		}

		@PostMapping("/echo")
		@Idempotent(name = "web.echo")
		ResponseEntity<Receipt> echo(@RequestBody PayRequest request,
				@RequestHeader(name = "Idempotency-Key", required = false) String key) throws InterruptedException {
			execute(key);
			return ResponseEntity.created(URI.create("/echo/" + key)).body(new Receipt(key, "echo", request.amount()));
		}

		@PostMapping(path = "/multipart", consumes = "multipart/form-data")
		@Idempotent(name = "web.multipart")
		ResponseEntity<Receipt> multipart(@ModelAttribute PayRequest form,
				@RequestHeader(name = "Idempotency-Key", required = false) String key) throws InterruptedException {
			execute(key);
			return ResponseEntity.created(URI.create("/multipart/1"))
				.body(new Receipt(UUID.randomUUID().toString(), form.account(), form.amount()));
		}

		@GetMapping("/lookups/{id}")
		Receipt lookup(@PathVariable String id) {
			return this.lookups.find(id);
		}

		private void execute(String header) throws InterruptedException {
			String key = unquoted(header);
			this.total.incrementAndGet();
			this.executions.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
			CountDownLatch release = this.held.get(key);
			if (release != null) {
				this.entered.get(key).countDown();
				release.await(30, TimeUnit.SECONDS);
			}
		}

		private static String unquoted(String header) {
			if (!header.startsWith("\"")) {
				return header;
			}
			return header.substring(1, header.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
		}

		void count(String key) {
			this.executions.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
		}

		CountDownLatch hold(String key) {
			this.entered.put(key, new CountDownLatch(1));
			CountDownLatch release = new CountDownLatch(1);
			this.held.put(key, release);
			return release;
		}

		CountDownLatch entered(String key) {
			return this.entered.get(key);
		}

		int executions(String key) {
			AtomicInteger count = this.executions.get(key);
			return (count != null) ? count.get() : 0;
		}

		int total() {
			return this.total.get();
		}

	}

	@RestController
	static class OwnErrors {

		@PostMapping("/own-errors")
		@Idempotent
		ResponseEntity<Receipt> pay(@RequestBody PayRequest request) {
			return ResponseEntity.ok(new Receipt("own", request.account(), request.amount()));
		}

	}

	@RestController
	static class BroadErrors {

		@PostMapping("/broad-errors")
		@Idempotent
		ResponseEntity<Receipt> pay(@RequestBody PayRequest request) {
			return ResponseEntity.ok(new Receipt("broad", request.account(), request.amount()));
		}

	}

	// A handler of the superclass of every idempotency exception
	@RestControllerAdvice(assignableTypes = BroadErrors.class)
	static class BroadErrorsAdvice {

		@ExceptionHandler
		ResponseEntity<String> anyProblem(IdempotencyException ex) {
			return ResponseEntity.status(418).body("own broad problem");
		}

	}

	@RestControllerAdvice(assignableTypes = OwnErrors.class)
	static class OwnErrorsAdvice {

		@ExceptionHandler
		ResponseEntity<String> invalidKey(IdempotencyKeyException ex) {
			return ResponseEntity.status(418).body("own key problem");
		}

	}

}
