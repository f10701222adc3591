package dev.idempotency.autoconfigure.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.Idempotent;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RenewalResult;
import dev.idempotency.store.StoredResult;
import dev.idempotency.test.redis.TestRedis;
import dev.idempotency.web.IdempotencyProblems;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the problem responses that tell a client whether its request took effect: an
 * outcome that could not be recorded, a store that failed before the handler ran and a
 * response too large to replay, over real HTTP on a real Redis, run for each web stack by
 * a subclass.
 */
abstract class OutcomeProblemWebTests {

	private static final JsonMapper json = JsonMapper.shared();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	@LocalServerPort
	private int port;

	@Autowired
	private Outcomes outcomes;

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-outcome-test:");
		registry.add("idempotency.lock-timeout", () -> "2s");
		registry.add("idempotency.max-result-size", () -> "512B");
		registry.add("spring.data.redis.host", () -> TestRedis.get().host());
		registry.add("spring.data.redis.port", () -> TestRedis.get().port());
	}

	@ParameterizedTest
	@ValueSource(strings = { "/unrecorded", "/deferred-unrecorded" })
	void handlerThatRanButWhoseOutcomeCouldNotBeStoredIsOutcomeUnknownWithoutRetryAfter(String path) throws Exception {
		String key = newKey();
		HttpResponse<byte[]> response = post(path, key);
		assertThat(this.outcomes.executions(key)).isEqualTo(1);
		JsonNode problem = assertProblem(response, IdempotencyProblems.OUTCOME_UNKNOWN, 500);
		assertThat(response.headers().firstValue("Retry-After")).isEmpty();
		assertThat(problem.get("detail").asString()).contains("may have taken effect")
			.doesNotContain("retry later")
			.doesNotContain("idempotency-outcome-test:")
			.doesNotContain(key);
	}

	@Test
	void runsOnTheServerOfItsStack(@Autowired WebServerApplicationContext context) {
		WebServers.assertServesItsStack(context);
	}

	@Test
	void storeFailureBeforeTheHandlerRanIsStillServiceUnavailable() throws Exception {
		String key = newKey();
		HttpResponse<byte[]> response = post("/acquire-outage", key);
		assertProblem(response, IdempotencyProblems.STORE_UNAVAILABLE, 503);
		assertThat(response.headers().firstValue("Retry-After")).isEmpty();
		assertThat(this.outcomes.executions(key)).isZero();
	}

	@Test
	void applicationsOwnHandlerForAnUnrecordedOutcomeWinsOverTheDefaultMapping() throws Exception {
		HttpResponse<byte[]> response = post("/own-unrecorded", newKey());
		assertThat(response.statusCode()).isEqualTo(418);
		assertThat(new String(response.body())).isEqualTo("own outcome problem");
	}

	@ParameterizedTest
	@ValueSource(strings = { "/large", "/deferred-large" })
	void retryOfARequestWhoseResponseExceededTheMaxResultSizeIsToldTheFirstOneSucceeded(String path) throws Exception {
		String key = newKey();
		HttpResponse<byte[]> first = post(path, key);
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(new String(first.body())).isEqualTo(Outcomes.large(key));
		HttpResponse<byte[]> retry = post(path, key);
		JsonNode problem = assertProblem(retry, IdempotencyProblems.UNREPLAYABLE_RESULT, 500);
		assertThat(retry.headers().firstValue("Retry-After")).isEmpty();
		assertThat(problem.get("detail").asString()).contains("first request")
			.contains("succeeded")
			.contains("cannot be replayed")
			.doesNotContain(key);
		assertThat(this.outcomes.executions(key)).isEqualTo(1);
	}

	private JsonNode assertProblem(HttpResponse<byte[]> response, String type, int status) throws IOException {
		assertThat(response.statusCode()).isEqualTo(status);
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((contentType) -> assertThat(contentType).startsWith("application/problem+json"));
		JsonNode problem = json.readTree(response.body());
		assertThat(problem.get("type").asString()).isEqualTo(type);
		assertThat(problem.get("status").asInt()).isEqualTo(status);
		assertThat(problem.get("title").asString()).isNotBlank();
		return problem;
	}

	private HttpResponse<byte[]> post(String path, String key) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.header("Content-Type", "application/json")
			.header(IdempotencyProblems.KEY_HEADER, key)
			.POST(HttpRequest.BodyPublishers.ofString("{\"account\":\"acc\",\"amount\":1}"))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofByteArray());
	}

	private static String newKey() {
		return UUID.randomUUID().toString();
	}

	record PayRequest(String account, long amount) {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Outcomes.class, OwnOutcomes.class, OwnOutcomesAdvice.class })
	static class TestApplication {

		@Bean
		static BeanPostProcessor failingStore() {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					return (bean instanceof IdempotencyStore store) ? new FailingStore(store) : bean;
				}

			};
		}

	}

	@RestController
	static class Outcomes {

		private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();

		@PostMapping("/unrecorded")
		@Idempotent(name = FailingStore.UNRECORDED)
		ResponseEntity<String> unrecorded(@RequestBody PayRequest request,
				@RequestHeader("Idempotency-Key") String key) {
			count(key);
			return ResponseEntity.status(201).body("paid");
		}

		@PostMapping("/deferred-unrecorded")
		@Idempotent(name = FailingStore.UNRECORDED + ".deferred")
		Mono<ResponseEntity<String>> deferredUnrecorded(@RequestBody PayRequest request,
				@RequestHeader("Idempotency-Key") String key) {
			return Mono.fromSupplier(() -> {
				count(key);
				return ResponseEntity.status(201).body("paid");
			});
		}

		@PostMapping("/acquire-outage")
		@Idempotent(name = FailingStore.ACQUIRE_OUTAGE)
		ResponseEntity<String> acquireOutage(@RequestBody PayRequest request,
				@RequestHeader("Idempotency-Key") String key) {
			count(key);
			return ResponseEntity.status(201).body("paid");
		}

		@PostMapping("/large")
		@Idempotent(name = "outcome.large")
		ResponseEntity<String> large(@RequestBody PayRequest request, @RequestHeader("Idempotency-Key") String key) {
			count(key);
			return ResponseEntity.status(201).body(large(key));
		}

		@PostMapping("/deferred-large")
		@Idempotent(name = "outcome.deferred-large")
		Mono<ResponseEntity<String>> deferredLarge(@RequestBody PayRequest request,
				@RequestHeader("Idempotency-Key") String key) {
			return Mono.fromSupplier(() -> {
				count(key);
				return ResponseEntity.status(201).body(large(key));
			});
		}

		static String large(String key) {
			return key + ":" + "x".repeat(2048);
		}

		private void count(String key) {
			this.executions.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
		}

		int executions(String key) {
			AtomicInteger count = this.executions.get(key);
			return (count != null) ? count.get() : 0;
		}

	}

	@RestController
	static class OwnOutcomes {

		@PostMapping("/own-unrecorded")
		@Idempotent(name = FailingStore.UNRECORDED + ".own")
		ResponseEntity<String> pay(@RequestBody PayRequest request) {
			return ResponseEntity.status(201).body("paid");
		}

	}

	@RestControllerAdvice(assignableTypes = OwnOutcomes.class)
	static class OwnOutcomesAdvice {

		@ExceptionHandler
		ResponseEntity<String> outcomeUnknown(IdempotencyCompletionException ex) {
			return ResponseEntity.status(418).body("own outcome problem");
		}

	}

	// The real store, except that it fails the acquire or the completion of the
	// operations
	// these names start
	static final class FailingStore implements IdempotencyStore {

		static final String UNRECORDED = "outcome.unrecorded";

		static final String ACQUIRE_OUTAGE = "outcome.acquire-outage";

		private final IdempotencyStore delegate;

		FailingStore(IdempotencyStore delegate) {
			this.delegate = delegate;
		}

		@Override
		public AcquireResult acquire(RecordKey key, AcquireRequest request) {
			if (key.name().startsWith(ACQUIRE_OUTAGE)) {
				throw new IdempotencyStoreException("acquire outage");
			}
			return this.delegate.acquire(key, request);
		}

		@Override
		public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
			if (key.name().startsWith(UNRECORDED)) {
				throw new IdempotencyStoreException("completion outage");
			}
			return this.delegate.complete(key, owner, fence, result, retention);
		}

		@Override
		public boolean release(RecordKey key, String owner, long fence, Duration retention) {
			return this.delegate.release(key, owner, fence, retention);
		}

		@Override
		public boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
			return this.delegate.renew(key, owner, fence, lease, retention);
		}

		@Override
		public CompletionStage<Boolean> renewAsync(RecordKey key, String owner, long fence, Duration lease,
				Duration retention) {
			return this.delegate.renewAsync(key, owner, fence, lease, retention);
		}

		@Override
		public CompletionStage<RenewalResult> renewLease(RecordKey key, String owner, long fence, Duration lease,
				Duration retention) {
			return this.delegate.renewLease(key, owner, fence, lease, retention);
		}

		@Override
		public CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention) {
			return this.delegate.abandon(key, owner, retention);
		}

		@Override
		public Optional<IdempotencyRecord> read(RecordKey key) {
			return this.delegate.read(key);
		}

		@Override
		public boolean evict(RecordKey key) {
			return this.delegate.evict(key);
		}

		@Override
		public String type() {
			return this.delegate.type();
		}

	}

}
