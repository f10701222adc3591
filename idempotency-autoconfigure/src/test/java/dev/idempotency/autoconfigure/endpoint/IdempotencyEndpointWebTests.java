package dev.idempotency.autoconfigure.endpoint;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.Idempotent;
import dev.idempotency.IdempotentExecutor;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.web.util.UriUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests of the idempotency endpoint and health contributor over HTTP, in an application
 * with an {@code @Idempotent} bean; each store runs them through a subclass.
 */
@SpringBootTest(classes = IdempotencyEndpointWebTests.TestApplication.class,
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=idempotency,health",
				"management.endpoint.health.show-details=always", "management.health.redis.enabled=false",
				"idempotency.operations[Payments.charge].lock-timeout=7m",
				"idempotency.operations[payments.refund].retention=2h" })
abstract class IdempotencyEndpointWebTests {

	private static final JsonMapper json = JsonMapper.shared();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@LocalServerPort
	private int port;

	@Autowired
	private Payments payments;

	@Autowired
	private IdempotentExecutor executor;

	protected abstract String storeType();

	@Test
	void completedKeyIsShownWithItsState() throws Exception {
		String key = newKey();
		this.payments.charge(key);
		HttpResponse<String> response = get("/actuator/idempotency/Payments.charge/" + key);
		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode record = json.readTree(response.body());
		assertThat(record.get("name").asString()).isEqualTo("Payments.charge");
		assertThat(record.get("key").asString()).isEqualTo(key);
		assertThat(record.get("keyHashed").asBoolean()).isFalse();
		assertThat(record.get("state").asString()).isEqualTo("COMPLETED");
		assertThat(record.get("fence").asLong()).isEqualTo(1);
		assertThat(record.get("resultStored").asBoolean()).isTrue();
		Instant startedAt = instant(record, "startedAt");
		assertThat(instant(record, "leaseExpiresAt")).isAfter(startedAt);
		assertThat(instant(record, "completedAt")).isAfterOrEqualTo(startedAt);
		assertThat(instant(record, "expiresAt")).isBetween(startedAt.plus(Duration.ofHours(23)),
				startedAt.plus(Duration.ofHours(25)));
	}

	@Test
	void inProgressKeyHasNullCompletionAndNoResult() throws Exception {
		String key = newKey();
		CountDownLatch release = new CountDownLatch(1);
		CompletableFuture<Void> running = CompletableFuture.runAsync(() -> this.payments.hold(key, release));
		try {
			JsonNode record = awaitRecord("/actuator/idempotency/Payments.hold/" + key);
			assertThat(record.get("state").asString()).isEqualTo("IN_PROGRESS");
			assertThat(record.get("completedAt").isNull()).isTrue();
			assertThat(record.get("resultStored").asBoolean()).isFalse();
			assertThat(instant(record, "leaseExpiresAt")).isAfter(instant(record, "startedAt"));
		}
		finally {
			release.countDown();
		}
		running.get(30, TimeUnit.SECONDS);
		JsonNode record = json.readTree(get("/actuator/idempotency/Payments.hold/" + key).body());
		assertThat(record.get("state").asString()).isEqualTo("COMPLETED");
		assertThat(record.get("resultStored").asBoolean()).isTrue();
	}

	@Test
	void failedKeyIsShownAsFailed() throws Exception {
		String key = newKey();
		assertThatIllegalStateException().isThrownBy(() -> this.payments.decline(key));
		JsonNode record = json.readTree(get("/actuator/idempotency/Payments.decline/" + key).body());
		assertThat(record.get("state").asString()).isEqualTo("FAILED");
		assertThat(record.get("fence").asLong()).isEqualTo(1);
		assertThat(record.get("completedAt").isNull()).isTrue();
	}

	@Test
	void unknownKeyOrOperationIsNotFound() throws Exception {
		this.payments.charge("known-" + newKey());
		assertThat(get("/actuator/idempotency/Payments.charge/" + newKey()).statusCode()).isEqualTo(404);
		assertThat(get("/actuator/idempotency/Nobody.nothing/" + newKey()).statusCode()).isEqualTo(404);
	}

	@Test
	void blankKeyIsBadRequest() throws Exception {
		assertThat(get("/actuator/idempotency/Payments.charge/%20").statusCode()).isEqualTo(400);
		assertThat(delete("/actuator/idempotency/Payments.charge/%20").statusCode()).isEqualTo(400);
	}

	@ParameterizedTest
	@ValueSource(strings = { "Payments.charge:refund", "Payments.charge%3Arefund", "Payments.charge%3arefund" })
	void nameThatWouldReachIntoAnotherOperationsKeysIsBadRequest(String name) throws Exception {
		String id = newKey();
		String key = "refund:" + id;
		this.payments.charge(key);
		assertThat(get("/actuator/idempotency/" + name + "/" + id).statusCode()).isEqualTo(400);
		assertThat(delete("/actuator/idempotency/" + name + "/" + id).statusCode()).isEqualTo(400);
		HttpResponse<String> untouched = get("/actuator/idempotency/Payments.charge/" + key);
		assertThat(untouched.statusCode()).isEqualTo(200);
		assertThat(json.readTree(untouched.body()).get("key").asString()).isEqualTo(key);
	}

	@ParameterizedTest
	@ValueSource(strings = { "Payments%20charge", "Payments.charge%20", "%20", "Payments.charge%09",
			"Payments.charge%0A", "Payments.charge%0D%0ASet-Cookie:x", "Payments.charge%00", "%E2%80%8B",
			"Payments.charge%C2%A0", "Payments%2Fcharge", "..%2F..%2Fx" })
	void nameThatNoOperationCanHaveIsBadRequest(String name) throws Exception {
		String id = newKey();
		this.payments.charge(id);
		assertThat(get("/actuator/idempotency/" + name + "/" + id).statusCode()).isEqualTo(400);
		assertThat(delete("/actuator/idempotency/" + name + "/" + id).statusCode()).isEqualTo(400);
		assertThat(get("/actuator/idempotency/Payments.charge/" + id).statusCode()).isEqualTo(200);
	}

	@ParameterizedTest
	@ValueSource(strings = { "Payments.charge/*", "*/{id}", "Payments.charge/{id}*", "Payments.charge/..",
			"Payments.charge/%2E%2E", "%2E%2E/{id}", "Payments.charge/../{id}x", "Payments.charge;x=1/{id}x" })
	void wildcardsAndDotSegmentsAddressOnlyThemselves(String path) throws Exception {
		String id = newKey();
		this.payments.charge(id);
		String target = "/actuator/idempotency/" + path.replace("{id}", id);
		assertThat(get(target).statusCode()).isEqualTo(404);
		assertThat(delete(target).statusCode()).isEqualTo(404);
		assertThat(get("/actuator/idempotency/Payments.charge/" + id).statusCode()).isEqualTo(200);
	}

	@Test
	void validNameOfNoAnnotatedMethodFindsTheRecordsOfAnExecutorOperation() throws Exception {
		String key = newKey();
		this.executor.run("manual.refund", key, () -> {
		});
		HttpResponse<String> response = get("/actuator/idempotency/manual.refund/" + key);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(json.readTree(response.body()).get("state").asString()).isEqualTo("COMPLETED");
		assertThat(delete("/actuator/idempotency/manual.refund/" + key).statusCode()).isEqualTo(204);
	}

	@Test
	void evictedKeyRunsAgain() throws Exception {
		String key = newKey();
		String path = "/actuator/idempotency/Payments.charge/" + key;
		this.payments.charge(key);
		this.payments.charge(key);
		assertThat(this.payments.charges(key)).isEqualTo(1);
		assertThat(delete(path).statusCode()).isEqualTo(204);
		assertThat(get(path).statusCode()).isEqualTo(404);
		assertThat(delete(path).statusCode()).isEqualTo(404);
		this.payments.charge(key);
		assertThat(this.payments.charges(key)).isEqualTo(2);
		assertThat(get(path).statusCode()).isEqualTo(200);
	}

	@Test
	void keyLongerThanTheMaximumIsFoundByItselfAndByItsDigest() throws Exception {
		String key = newKey() + "-" + "k".repeat(300);
		String digest = "sha256:" + sha256Hex(key);
		this.payments.charge(key);
		JsonNode record = json.readTree(get("/actuator/idempotency/Payments.charge/" + key).body());
		assertThat(record.get("key").asString()).isEqualTo(digest);
		assertThat(record.get("keyHashed").asBoolean()).isTrue();
		JsonNode byDigest = json.readTree(get("/actuator/idempotency/Payments.charge/" + digest).body());
		assertThat(byDigest.get("key").asString()).isEqualTo(digest);
		assertThat(byDigest.get("keyHashed").asBoolean()).isFalse();
		assertThat(delete("/actuator/idempotency/Payments.charge/" + key).statusCode()).isEqualTo(204);
		assertThat(get("/actuator/idempotency/Payments.charge/" + digest).statusCode()).isEqualTo(404);
	}

	// Such as an OCI image digest: stored hashed, since it starts with sha256:, and found
	// by the key the expression evaluated to, as every other key is
	@Test
	void keyThatHasTheFormOfAHashedOneIsFoundAndEvictedByItself() throws Exception {
		String key = "sha256:" + sha256Hex(newKey());
		this.payments.charge(key);
		HttpResponse<String> response = get("/actuator/idempotency/Payments.charge/" + key);
		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode record = json.readTree(response.body());
		assertThat(record.get("key").asString()).isEqualTo("sha256:" + sha256Hex(key));
		assertThat(record.get("keyHashed").asBoolean()).isTrue();
		assertThat(delete("/actuator/idempotency/Payments.charge/" + key).statusCode()).isEqualTo(204);
		assertThat(get("/actuator/idempotency/Payments.charge/" + key).statusCode()).isEqualTo(404);
		this.payments.charge(key);
		assertThat(this.payments.charges(key)).isEqualTo(2);
	}

	@Test
	void keysWithColonsDotsSlashesAndSpacesAreFound() throws Exception {
		String id = newKey();
		for (String key : new String[] { "tenant:7:" + id, "order.7." + id, "tenant/7/order/" + id, "a b:c.d/" + id }) {
			this.payments.charge(key);
			String path = "/actuator/idempotency/Payments.charge/" + UriUtils.encodePath(key, StandardCharsets.UTF_8);
			HttpResponse<String> response = get(path);
			assertThat(response.statusCode()).as(key).isEqualTo(200);
			assertThat(json.readTree(response.body()).get("key").asString()).isEqualTo(key);
			assertThat(delete(path).statusCode()).as(key).isEqualTo(204);
		}
	}

	@Test
	void operationNameWithDotsIsFound() throws Exception {
		String key = newKey();
		this.payments.capture(key, 10);
		HttpResponse<String> response = get("/actuator/idempotency/payments.capture/" + key);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(json.readTree(response.body()).get("name").asString()).isEqualTo("payments.capture");
	}

	@Test
	void listingShowsStoreDefaultsAndOperationsWithEffectiveSettings() throws Exception {
		HttpResponse<String> response = get("/actuator/idempotency");
		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode listing = json.readTree(response.body());
		assertThat(listing.at("/store/type").asString()).isEqualTo(storeType());
		JsonNode defaults = listing.get("defaults");
		assertThat(defaults.get("lockTimeout").asString()).isEqualTo("PT30S");
		assertThat(defaults.get("retention").asString()).isEqualTo("PT24H");
		assertThat(defaults.get("onInProgress").asString()).isEqualTo("REJECT");
		assertThat(defaults.get("waitTimeout").asString()).isEqualTo("PT10S");
		assertThat(defaults.get("onStoreFailure").asString()).isEqualTo("FAIL");
		assertThat(defaults.get("maxKeyLength").asInt()).isEqualTo(200);
		assertThat(defaults.get("maxResultSize").asLong()).isEqualTo(1024 * 1024);
		JsonNode charge = listing.at("/operations/Payments.charge");
		assertThat(charge.get("method").asString()).isEqualTo(Payments.class.getName() + ".charge(String)");
		assertThat(charge.get("keyExpression").asString()).isEqualTo("#id");
		assertThat(charge.has("payloadExpression")).isFalse();
		assertThat(charge.at("/settings/lockTimeout").asString()).isEqualTo("PT7M");
		assertThat(charge.at("/settings/retention").asString()).isEqualTo("PT24H");
		assertThat(charge.at("/settings/onInProgress").asString()).isEqualTo("REJECT");
		JsonNode capture = listing.at("/operations/payments.capture");
		assertThat(capture.get("method").asString()).isEqualTo(Payments.class.getName() + ".capture(String, int)");
		assertThat(capture.get("payloadExpression").asString()).isEqualTo("#amount");
		assertThat(capture.at("/settings/retention").asString()).isEqualTo("PT1H30M");
		assertThat(capture.at("/settings/onInProgress").asString()).isEqualTo("WAIT");
		JsonNode refund = listing.at("/configuredOnly/payments.refund");
		assertThat(refund.get("retention").asString()).isEqualTo("PT2H");
		assertThat(refund.has("lockTimeout")).isFalse();
		assertThat(listing.get("configuredOnly").has("Payments.charge")).isFalse();
	}

	@Test
	void healthContributorIsUpWithTheStoreType() throws Exception {
		HttpResponse<String> response = get("/actuator/health/idempotency");
		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode health = json.readTree(response.body());
		assertThat(health.get("status").asString()).isEqualTo("UP");
		assertThat(health.at("/details/store").asString()).isEqualTo(storeType());
	}

	protected HttpResponse<String> get(String path) throws IOException, InterruptedException {
		return send(HttpRequest.newBuilder(uri(path)).GET());
	}

	protected HttpResponse<String> delete(String path) throws IOException, InterruptedException {
		return send(HttpRequest.newBuilder(uri(path)).DELETE());
	}

	private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
		return this.http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

	private JsonNode awaitRecord(String path) {
		HttpResponse<String> response = await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> get(path), (candidate) -> candidate.statusCode() == 200);
		return json.readTree(response.body());
	}

	private static Instant instant(JsonNode record, String field) {
		return Instant.parse(record.get(field).asString());
	}

	private static String newKey() {
		return UUID.randomUUID().toString();
	}

	private static String sha256Hex(String value) throws NoSuchAlgorithmException {
		MessageDigest digest = MessageDigest.getInstance("SHA-256");
		return HexFormat.of().formatHex(digest.digest(value.getBytes(StandardCharsets.UTF_8)));
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Payments.class)
	static class TestApplication {

	}

	static class Payments {

		private final Map<String, AtomicInteger> charges = new ConcurrentHashMap<>();

		@Idempotent(key = "#id")
		public String charge(String id) {
			return "receipt-" + this.charges.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
		}

		@Idempotent(name = "payments.capture", key = "#id", payload = "#amount", retention = "90m",
				onInProgress = Idempotent.OnInProgress.WAIT)
		public void capture(String id, int amount) {
		}

		@Idempotent(key = "#id")
		public String hold(String id, CountDownLatch release) {
			try {
				release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return "held";
		}

		@Idempotent(key = "#id")
		public void decline(String id) {
			throw new IllegalStateException("declined");
		}

		public int charges(String id) {
			AtomicInteger count = this.charges.get(id);
			return (count != null) ? count.get() : 0;
		}

	}

}
