package dev.idempotency.autoconfigure.aot;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.test.redis.TestRedis;
import dev.idempotency.web.IdempotencyProblems;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the AOT web application tests share: the environment of an application on a random
 * port and the shared Redis, the requests they send over real HTTP, and what they expect
 * of the responses and of the build's hints.
 */
final class AotHttp {

	static final String ORDER = "{\"item\":\"book\",\"quantity\":2}";

	static final String OTHER_ORDER = "{\"item\":\"book\",\"quantity\":3}";

	private static final JsonMapper json = JsonMapper.shared();

	private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final int port;

	AotHttp(int port) {
		this.port = port;
	}

	static Map<String, Object> properties() {
		return Map.of("server.port", 0, "idempotency.store", "redis", "spring.data.redis.host", TestRedis.get().host(),
				"spring.data.redis.port", TestRedis.get().port(), "idempotency.key-prefix",
				"aot-web-" + UUID.randomUUID() + ":");
	}

	HttpResponse<byte[]> post(String path, String key, String body) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(10))
			.header("Content-Type", "application/json")
			.header(IdempotencyProblems.KEY_HEADER, key)
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build();
		return this.client.send(request, HttpResponse.BodyHandlers.ofByteArray());
	}

	/**
	 * Send an order twice with one key, then another order with that key, and check that
	 * the handler's response is replayed to the retry and the other order refused.
	 * @param path the handler's path
	 * @param location the {@code Location} the handler's one run answers with
	 */
	void assertRunsOnceAndReplays(String path, String location) throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<byte[]> first = post(path, key, ORDER);
		HttpResponse<byte[]> retry = post(path, key, ORDER);
		HttpResponse<byte[]> reused = post(path, key, OTHER_ORDER);
		assertRunsOnceAndReplays(first, retry, reused, location);
	}

	private static void assertRunsOnceAndReplays(HttpResponse<byte[]> first, HttpResponse<byte[]> retry,
			HttpResponse<byte[]> reused, String location) {
		assertThat(first.statusCode()).as(() -> new String(first.body())).isEqualTo(201);
		assertThat(first.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).isEmpty();
		JsonNode receipt = json.readTree(first.body());
		assertThat(receipt.get("item").asString()).isEqualTo("book");
		assertThat(receipt.get("quantity").asInt()).isEqualTo(2);
		assertThat(first.headers().firstValue("Location")).hasValue(location);
		assertThat(retry.statusCode()).as(() -> new String(retry.body())).isEqualTo(201);
		assertThat(retry.headers().firstValue(IdempotencyProblems.REPLAYED_HEADER)).hasValue("true");
		assertThat(retry.headers().firstValue("Location")).hasValue(location);
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(reused.statusCode()).as(() -> new String(reused.body())).isEqualTo(422);
		assertThat(reused.headers().firstValue("Content-Type"))
			.hasValueSatisfying((contentType) -> assertThat(contentType).startsWith("application/problem+json"));
		assertThat(json.readTree(reused.body()).get("type").asString()).isEqualTo(IdempotencyProblems.KEY_REUSED);
	}

	static void assertBodiesHaveBindingHints(RuntimeHints hints, Class<?> requestBody, Class<?> responseBody) {
		for (Class<?> body : new Class<?>[] { requestBody, responseBody }) {
			assertThat(RuntimeHintsPredicates.reflection().onType(body)).accepts(hints);
			for (var component : body.getRecordComponents()) {
				assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(component.getAccessor()))
					.accepts(hints);
			}
			assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(body.getDeclaredConstructors()[0]))
				.accepts(hints);
		}
		// Spring's own hints for request mappings give the binding above: the public
		// methods of the parameter, which a key or payload expression may call, are the
		// starter's processor's alone, and show that it found the controller
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(requestBody)
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(hints);
	}

	// A native image cannot define classes at run time: the proxy that makes the
	// handler idempotent must have been generated by the build, under the name that
	// the application uses
	static void assertProxyClassWasGenerated(RuntimeHints hints, Object bean) {
		String proxy = bean.getClass().getName();
		assertThat(proxy).contains("$$SpringCGLIB$$");
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(TypeReference.of(proxy))
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
	}

}
