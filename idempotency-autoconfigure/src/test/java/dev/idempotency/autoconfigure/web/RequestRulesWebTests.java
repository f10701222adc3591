package dev.idempotency.autoconfigure.web;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.TestRedis;
import dev.idempotency.web.IdempotencyProblems;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of which requests an idempotent handler takes as idempotent, and with which keys,
 * over real HTTP from a client that sends the bytes as given, on a real Redis, run for
 * each web stack by a subclass.
 */
abstract class RequestRulesWebTests {

	private static final JsonMapper json = JsonMapper.shared();

	@LocalServerPort
	private int port;

	@Autowired
	private Orders orders;

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-rules-test:");
		registry.add("spring.data.redis.host", () -> TestRedis.get().host());
		registry.add("spring.data.redis.port", () -> TestRedis.get().port());
	}

	static List<String> refusedKeys() {
		return List.of("k".repeat(256), "\"" + "k".repeat(256) + "\"", "k".repeat(7000), "hello world {}<script>",
				"a, b", "clé", "\"clé\"", "\"abc\" junk", "\"abc\";P=1", "\"abc\";p=");
	}

	@ParameterizedTest
	@MethodSource("refusedKeys")
	void keyThatIsNotAnSfStringOfPrintableAsciiIsInvalidAndTheHandlerIsNotRun(String key) throws Exception {
		int before = this.orders.total();
		RawHttp.Response response = order(List.of(IdempotencyProblems.KEY_HEADER + ": " + key));
		assertInvalidKey(response);
		assertThat(this.orders.total()).isEqualTo(before);
	}

	@Test
	void runsOnTheServerOfItsStack(@Autowired WebServerApplicationContext context) {
		WebServers.assertServesItsStack(context);
	}

	@Test
	void keyHeaderSentTwiceIsInvalidAndTheHandlerIsNotRun() throws Exception {
		int before = this.orders.total();
		RawHttp.Response response = order(
				List.of(IdempotencyProblems.KEY_HEADER + ": " + newKey(), IdempotencyProblems.KEY_HEADER + ": other"));
		assertInvalidKey(response);
		assertThat(this.orders.total()).isEqualTo(before);
	}

	// Tomcat (MVC) and Netty (WebFlux) refuse such a header value themselves, before any
	// filter, with a 400 of their own (RequestKeysTests covers a server that passes it)
	@ParameterizedTest
	@ValueSource(strings = { "a\u0000b", "a\u0001b", "a\u001fb", "a\u007fb", "\u0001" })
	void keyWithAControlCharacterIsRefusedAndTheHandlerIsNotRun(String key) throws Exception {
		int before = this.orders.total();
		RawHttp.Response response = order(List.of(IdempotencyProblems.KEY_HEADER + ": " + key));
		assertThat(response.status()).isEqualTo(400);
		assertThat(this.orders.total()).isEqualTo(before);
	}

	@Test
	void keyHeaderIsFoundWhateverTheCaseOfItsName() throws Exception {
		String key = newKey();
		RawHttp.Response first = order(List.of("idempotency-key: " + key));
		RawHttp.Response retry = order(List.of("IDEMPOTENCY-KEY: " + key));
		assertThat(first.status()).as(first.text()).isEqualTo(201);
		assertThat(retry.header(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.body()).isEqualTo(first.body());
	}

	@Test
	void keyOfTheLongestLengthIsAcceptedAndReplays() throws Exception {
		String key = newKey();
		key = key + "x".repeat(255 - key.length());
		assertReplays(key, key);
	}

	@Test
	void parametersOfAnSfStringAreIgnored() throws Exception {
		String key = newKey();
		assertReplays("\"" + key + "\";p=1", key);
		String other = newKey();
		assertReplays(other, "\"" + other + "\"; p=\"x;y\";*q;r=?1");
	}

	@Test
	void handlerMappedToSafeAndUnsafeMethodsProtectsOnlyTheUnsafeOnes() throws Exception {
		for (String path : List.of("/rules/items/", "/rules/anything/")) {
			String id = newKey();
			List<String> key = List.of(IdempotencyProblems.KEY_HEADER + ": " + newKey());
			RawHttp.Response post = RawHttp.send(this.port, "POST", path + id, key, "{}");
			RawHttp.Response retry = RawHttp.send(this.port, "POST", path + id, key, "{}");
			assertThat(post.status()).as(post.text()).isEqualTo(200);
			assertThat(retry.header(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
			assertThat(retry.body()).isEqualTo(post.body());
			assertThat(this.orders.executions(id)).isEqualTo(1);
			for (int i = 2; i <= 3; i++) {
				RawHttp.Response get = RawHttp.send(this.port, "GET", path + id, key, "");
				assertThat(get.status()).as(get.text()).isEqualTo(200);
				assertThat(get.header(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
				assertThat(get.body()).isNotEqualTo(post.body());
				assertThat(this.orders.executions(id)).isEqualTo(i);
			}
		}
	}

	private void assertReplays(String firstKey, String retryKey) throws Exception {
		RawHttp.Response first = order(List.of(IdempotencyProblems.KEY_HEADER + ": " + firstKey));
		assertThat(first.status()).as(first.text()).isEqualTo(201);
		assertThat(first.header(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
		RawHttp.Response retry = order(List.of(IdempotencyProblems.KEY_HEADER + ": " + retryKey));
		assertThat(retry.status()).as(retry.text()).isEqualTo(201);
		assertThat(retry.header(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.body()).isEqualTo(first.body());
	}

	private RawHttp.Response order(List<String> headers) throws Exception {
		return RawHttp.send(this.port, "POST", "/rules/orders", headers, "{\"item\":\"book\"}");
	}

	private static void assertInvalidKey(RawHttp.Response response) throws Exception {
		assertThat(response.status()).as(response.text()).isEqualTo(400);
		assertThat(response.header("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
		JsonNode problem = json.readTree(response.body());
		assertThat(problem.get("type").asString()).isEqualTo(IdempotencyProblems.INVALID_KEY);
	}

	private static String newKey() {
		return UUID.randomUUID().toString();
	}

	record Order(String item) {

	}

	record Placed(String id, String item) {

	}

	@RestController
	static class Orders {

		private final AtomicInteger total = new AtomicInteger();

		private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();

		@PostMapping("/rules/orders")
		@ResponseStatus(HttpStatus.CREATED)
		@Idempotent(name = "rules.orders")
		Placed place(@RequestBody Order order) {
			this.total.incrementAndGet();
			return new Placed(UUID.randomUUID().toString(), order.item());
		}

		@RequestMapping(path = "/rules/items/{id}", method = { RequestMethod.GET, RequestMethod.POST })
		@Idempotent(name = "rules.items")
		Placed item(@PathVariable String id) {
			count(id);
			return new Placed(UUID.randomUUID().toString(), id);
		}

		@RequestMapping("/rules/anything/{id}")
		@Idempotent(name = "rules.anything")
		Placed anything(@PathVariable String id) {
			count(id);
			return new Placed(UUID.randomUUID().toString(), id);
		}

		int total() {
			return this.total.get();
		}

		int executions(String key) {
			return this.executions.getOrDefault(key, new AtomicInteger()).get();
		}

		void count(String key) {
			this.executions.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
			this.total.incrementAndGet();
		}

	}

}
