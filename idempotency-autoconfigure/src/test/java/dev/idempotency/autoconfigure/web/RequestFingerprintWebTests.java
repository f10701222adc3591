package dev.idempotency.autoconfigure.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.TestRedis;
import dev.idempotency.web.IdempotencyProblems;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the fingerprint of request handlers without a payload expression, which covers
 * the method, path, query string and body (or form) of the request, over real HTTP on a
 * real Redis, run for each web stack by a subclass.
 */
abstract class RequestFingerprintWebTests {

	private static final JsonMapper json = JsonMapper.shared();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@LocalServerPort
	private int port;

	@Autowired
	private Charges charges;

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-fingerprint-test:");
		registry.add("spring.data.redis.host", () -> TestRedis.get().host());
		registry.add("spring.data.redis.port", () -> TestRedis.get().port());
	}

	@Test
	void runsOnTheServerOfItsStack(@Autowired WebServerApplicationContext context) {
		WebServers.assertServesItsStack(context);
	}

	@Test
	void formPostReusedWithOtherFieldsIsUnprocessable() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> alice = send(form("POST", "/charges/form", key, "account=alice&amount=10"));
		assertThat(alice.statusCode()).isEqualTo(201);
		HttpResponse<byte[]> mallory = send(form("POST", "/charges/form", key, "account=mallory&amount=999999"));
		assertKeyReused(mallory);
		assertThat(this.charges.executions(key)).isEqualTo(1);
	}

	@Test
	void samePathWithAnotherPathVariableIsUnprocessable() throws Exception {
		String key = newKey();
		assertThat(send(json("POST", "/accounts/111/charge", key, "{\"amount\":10}")).statusCode()).isEqualTo(201);
		assertKeyReused(send(json("POST", "/accounts/222/charge", key, "{\"amount\":10}")));
		assertThat(this.charges.executions(key)).isEqualTo(1);
	}

	@Test
	void anotherQueryStringIsUnprocessable() throws Exception {
		String key = newKey();
		assertThat(send(json("POST", "/accounts/111/charge?currency=EUR&tag=a&tag=b", key, "{\"amount\":10}"))
			.statusCode()).isEqualTo(201);
		assertKeyReused(send(json("POST", "/accounts/111/charge?currency=USD&tag=a&tag=b", key, "{\"amount\":10}")));
		assertKeyReused(send(json("POST", "/accounts/111/charge?currency=EUR&tag=b&tag=a", key, "{\"amount\":10}")));
		assertKeyReused(send(json("POST", "/accounts/111/charge", key, "{\"amount\":10}")));
		assertThat(this.charges.executions(key)).isEqualTo(1);
	}

	@Test
	void anotherMethodIsUnprocessable() throws Exception {
		String key = newKey();
		assertThat(send(json("POST", "/accounts/111/limit", key, "{\"amount\":10}")).statusCode()).isEqualTo(201);
		assertKeyReused(send(json("PUT", "/accounts/111/limit", key, "{\"amount\":10}")));
		assertThat(this.charges.executions(key)).isEqualTo(1);
	}

	@Test
	void identicalRetryReplaysWhateverTheOrderOfItsParametersAndTheSpellingOfItsBody() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = send(
				json("POST", "/accounts/111/charge?currency=EUR&tag=a&tag=b", key, "{\"amount\":10,\"note\":\"n\"}"));
		assertThat(first.statusCode()).isEqualTo(201);
		HttpResponse<byte[]> retry = send(json("POST", "/accounts/111/charge?tag=a&currency=%45UR&tag=b", key,
				"{ \"note\": \"n\", \"amount\": 1.0e1 }"));
		assertReplayOf(retry, first);
		assertThat(this.charges.executions(key)).isEqualTo(1);
	}

	@Test
	void identicalFormRetryReplaysWhateverTheOrderOfItsFields() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = send(form("POST", "/charges/form", key, "account=alice&amount=10"));
		assertThat(first.statusCode()).isEqualTo(201);
		assertReplayOf(send(form("POST", "/charges/form", key, "amount=10&account=alice")), first);
		assertThat(this.charges.executions(key)).isEqualTo(1);
	}

	@Test
	void explicitPayloadWinsOverTheRequest() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = send(json("POST", "/accounts/111/refund", key, "{\"amount\":10}"));
		assertThat(first.statusCode()).isEqualTo(201);
		assertReplayOf(send(json("POST", "/accounts/222/refund?currency=USD", key, "{\"amount\":10}")), first);
		assertKeyReused(send(json("POST", "/accounts/111/refund", key, "{\"amount\":11}")));
		assertThat(this.charges.executions(key)).isEqualTo(1);
	}

	private void assertKeyReused(HttpResponse<byte[]> response) throws Exception {
		assertThat(response.statusCode()).isEqualTo(422);
		JsonNode problem = json.readTree(response.body());
		assertThat(problem.get("type").asString()).isEqualTo(IdempotencyProblems.KEY_REUSED);
	}

	private static void assertReplayOf(HttpResponse<byte[]> retry, HttpResponse<byte[]> first) {
		assertThat(retry.statusCode()).isEqualTo(first.statusCode());
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.body()).isEqualTo(first.body());
	}

	private HttpRequest json(String method, String path, String key, String body) {
		return HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.header(IdempotencyProblems.KEY_HEADER, key)
			.method(method, HttpRequest.BodyPublishers.ofString(body))
			.build();
	}

	private HttpRequest form(String method, String path, String key, String body) {
		return HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.header(IdempotencyProblems.KEY_HEADER, key)
			.method(method, HttpRequest.BodyPublishers.ofString(body))
			.build();
	}

	private HttpResponse<byte[]> send(HttpRequest request) throws Exception {
		return this.http.send(request, HttpResponse.BodyHandlers.ofByteArray());
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

	private static String newKey() {
		return UUID.randomUUID().toString();
	}

	record Charge(long amount, String note) {

	}

	record FormCharge(String account, long amount) {

	}

	record Receipt(String id, String account, long amount) {

	}

	@RestController
	static class Charges {

		private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();

		@PostMapping("/accounts/{account}/charge")
		@Idempotent(name = "fingerprint.charge")
		ResponseEntity<Receipt> charge(@PathVariable String account, @RequestBody Charge charge,
				@RequestParam(required = false) String currency, @RequestHeader("Idempotency-Key") String key) {
			return created(key, account, charge.amount());
		}

		@RequestMapping(path = "/accounts/{account}/limit", method = { RequestMethod.POST, RequestMethod.PUT })
		@Idempotent(name = "fingerprint.limit")
		ResponseEntity<Receipt> limit(@PathVariable String account, @RequestBody Charge charge,
				@RequestHeader("Idempotency-Key") String key) {
			return created(key, account, charge.amount());
		}

		@PostMapping("/accounts/{account}/refund")
		@Idempotent(name = "fingerprint.refund", payload = "#p1.amount")
		ResponseEntity<Receipt> refund(@PathVariable String account, @RequestBody Charge charge,
				@RequestHeader("Idempotency-Key") String key) {
			return created(key, account, charge.amount());
		}

		@PostMapping(path = "/charges/form", consumes = "application/x-www-form-urlencoded")
		@Idempotent(name = "fingerprint.form")
		ResponseEntity<Receipt> form(@ModelAttribute FormCharge form, @RequestHeader("Idempotency-Key") String key) {
			return created(key, form.account(), form.amount());
		}

		private ResponseEntity<Receipt> created(String key, String account, long amount) {
			this.executions.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
			return ResponseEntity.created(URI.create("/receipts/" + key))
				.body(new Receipt(UUID.randomUUID().toString(), account, amount));
		}

		int executions(String key) {
			AtomicInteger count = this.executions.get(key);
			return (count != null) ? count.get() : 0;
		}

	}

}
