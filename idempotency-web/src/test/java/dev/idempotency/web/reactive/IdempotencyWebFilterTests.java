package dev.idempotency.web.reactive;

import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.Idempotent;
import dev.idempotency.web.KeyScope;
import dev.idempotency.aop.RequestBinding.BoundRequest;
import dev.idempotency.web.RequestKeys;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.util.MultiValueMap;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import org.springframework.web.server.WebFilterChain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class IdempotencyWebFilterTests {

	private final RequestKeys keys = new RequestKeys("Idempotency-Key", KeyScope.PRINCIPAL);

	private final IdempotencyWebFilter filter = new IdempotencyWebFilter(this.keys);

	private final ReactiveRequestBinding binding = new ReactiveRequestBinding(this.keys);

	@Test
	void handlerCalledWhileTheChainIsSubscribedFindsTheExchangeAndItsPrincipal() {
		MockServerWebExchange exchange = MockServerWebExchange
			.from(MockServerHttpRequest.post("/payments").header("Idempotency-Key", "\"k-1\""));
		BoundRequest bound = run(withPrincipal(exchange, "alice"), (chained) -> Mono.empty());
		assertThat(bound.key()).isEqualTo("5:alice:k-1");
		bound.replayed();
		assertThat(exchange.getResponse().getHeaders().getFirst("Idempotent-Replayed")).isEqualTo("true");
	}

	@Test
	void handlerCalledFromTheBodyFindsTheExchangeOnTheThreadThatDeliversIt() {
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.post("/payments")
			.header("Idempotency-Key", "k-2")
			.body(Mono.delay(Duration.ofMillis(10))
				.map((tick) -> DefaultDataBufferFactory.sharedInstance.wrap("{}".getBytes(StandardCharsets.UTF_8)))));
		AtomicReference<String> thread = new AtomicReference<>();
		AtomicReference<BoundRequest> bound = new AtomicReference<>();
		WebFilterChain chain = (chained) -> chained.getRequest().getBody().then(Mono.fromRunnable(() -> {
			thread.set(Thread.currentThread().getName());
			bound.set(this.binding.bind("payments"));
		}));
		this.filter.filter(exchange, chain).block(Duration.ofSeconds(10));
		assertThat(thread.get()).isNotEqualTo(Thread.currentThread().getName());
		assertThat(bound.get().key()).isEqualTo("-:k-2");
	}

	@Test
	void handlerCalledOnAnotherSchedulerFailsSayingWhy() {
		MockServerWebExchange exchange = MockServerWebExchange
			.from(MockServerHttpRequest.post("/payments").header("Idempotency-Key", "k-3"));
		WebFilterChain chain = (chained) -> Mono.fromRunnable(() -> this.binding.bind("payments"))
			.subscribeOn(Schedulers.parallel())
			.then();
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.filter.filter(exchange, chain).block(Duration.ofSeconds(10)))
			.withMessageContaining("no WebFlux exchange is bound to the calling thread");
	}

	@Test
	void exchangeIsInTheReactorContextOfTheChain() {
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/payments"));
		AtomicReference<Object> found = new AtomicReference<>();
		WebFilterChain chain = (chained) -> Mono.deferContextual((context) -> {
			found.set(context.get(ExchangeHolder.CONTEXT_KEY));
			return Mono.empty();
		});
		this.filter.filter(exchange, chain).block(Duration.ofSeconds(10));
		assertThat(found.get()).isInstanceOf(ServerWebExchange.class);
	}

	@Test
	void principalIsNotResolvedForARequestWithoutTheKeyHeader() {
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.post("/payments"));
		AtomicReference<Boolean> asked = new AtomicReference<>(false);
		ServerWebExchange watched = new ServerWebExchangeDecorator(exchange) {

			@Override
			public <T extends Principal> Mono<T> getPrincipal() {
				asked.set(true);
				return Mono.empty();
			}

		};
		this.filter.filter(watched, (chained) -> Mono.empty()).block(Duration.ofSeconds(10));
		assertThat(asked.get()).isFalse();
		assertThat(ExchangeHolder.get()).isNull();
	}

	@Test
	void handlerCalledFromThePrincipalOnAnotherThreadFindsTheExchange() {
		MockServerWebExchange exchange = MockServerWebExchange
			.from(MockServerHttpRequest.post("/payments").header("Idempotency-Key", "k-4"));
		AtomicReference<String> thread = new AtomicReference<>();
		AtomicReference<BoundRequest> bound = new AtomicReference<>();
		// As WebFlux resolves a Principal argument and calls the handler from its signal
		WebFilterChain chain = (chained) -> chained.getPrincipal().doOnNext((principal) -> {
			thread.set(Thread.currentThread().getName());
			bound.set(this.binding.bind("payments"));
		}).then();
		this.filter.filter(withPrincipal(exchange, "bob"), chain).block(Duration.ofSeconds(10));
		assertThat(thread.get()).isNotEqualTo(Thread.currentThread().getName());
		assertThat(bound.get().key()).isEqualTo("3:bob:k-4");
	}

	@Test
	void requestsInterleavedOnOneThreadSeeOnlyTheirOwnExchangeAndLeaveNoneBehind() {
		Scheduler loop = Schedulers.newSingle("event-loop");
		try {
			List<ServerWebExchange> strangers = new CopyOnWriteArrayList<>();
			List<String> mixups = new CopyOnWriteArrayList<>();
			Map<String, String> keys = new ConcurrentHashMap<>();
			// Work of no request that runs on the same thread between their signals
			Disposable bystander = Flux.interval(Duration.ofMillis(1), loop).subscribe((tick) -> {
				ServerWebExchange held = ExchangeHolder.get();
				if (held != null) {
					strangers.add(held);
				}
			});
			List<Mono<Void>> requests = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				String key = "k-" + i;
				MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.post("/payments")
					.header("Idempotency-Key", key)
					.body(Flux.interval(Duration.ofMillis(1), loop)
						.take(20)
						.map((tick) -> DefaultDataBufferFactory.sharedInstance
							.wrap(key.getBytes(StandardCharsets.UTF_8)))));
				WebFilterChain chain = (chained) -> chained.getRequest().getBody().doOnNext((buffer) -> {
					if (ExchangeHolder.get() != chained) {
						mixups.add(key + " saw " + ExchangeHolder.get());
					}
				}).then(Mono.fromRunnable(() -> keys.put(key, this.binding.bind("payments").key())));
				requests.add(this.filter.filter(withPrincipal(exchange, "user-" + i), chain));
			}
			Mono.when(requests).block(Duration.ofSeconds(10));
			bystander.dispose();
			assertThat(mixups).isEmpty();
			assertThat(strangers).isEmpty();
			assertThat(keys).containsOnly(Map.entry("k-0", "6:user-0:k-0"), Map.entry("k-1", "6:user-1:k-1"),
					Map.entry("k-2", "6:user-2:k-2"), Map.entry("k-3", "6:user-3:k-3"));
			assertThat(Mono.fromCallable(() -> Optional.ofNullable(ExchangeHolder.get()))
				.subscribeOn(loop)
				.block(Duration.ofSeconds(10))).isEmpty();
		}
		finally {
			loop.dispose();
		}
	}

	@Test
	void keyIsScopedAsTheResolverSaysAndPayloadHasTheQueryAndFormParameters() {
		IdempotencyWebFilter byApiKey = new IdempotencyWebFilter(this.keys,
				(exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Api-Key"))
					.delayElement(Duration.ofMillis(5)));
		MockServerWebExchange exchange = MockServerWebExchange
			.from(MockServerHttpRequest.post("/accounts/1/charge?tag=b&tag=a")
				.header("Idempotency-Key", "k-1")
				.header("X-Api-Key", "api-7")
				.contentType(MediaType.APPLICATION_FORM_URLENCODED)
				.body("account=alice&tag=c"));
		AtomicReference<BoundRequest> bound = new AtomicReference<>();
		byApiKey.filter(withPrincipal(exchange, "alice"), (chained) -> {
			bound.set(this.binding.bind("payments"));
			return Mono.empty();
		}).block(Duration.ofSeconds(10));
		assertThat(bound.get().key()).isEqualTo("5:api-7:k-1");
		assertThat(bound.get().payload().method()).isEqualTo("POST");
		assertThat(bound.get().payload().path()).isEqualTo("/accounts/1/charge");
		assertThat(bound.get().payload().parameters()).containsOnly(Map.entry("tag", List.of("b", "a", "c")),
				Map.entry("account", List.of("alice")));
	}

	@Test
	void formIsReadForAHandlerThatFingerprintsIt() {
		AtomicInteger lookups = new AtomicInteger();
		IdempotencyWebFilter filter = filterMappingTo("fields", lookups);
		assertThat(formParameters(filter, MediaType.APPLICATION_FORM_URLENCODED))
			.containsOnly(Map.entry("tag", List.of("b")), Map.entry("account", List.of("alice")));
		assertThat(lookups).hasValue(1);
	}

	@Test
	void formIsLeftToAHandlerThatDoesNotFingerprintIt() {
		for (String handler : List.of("plain", "keyed", "withPayload", "body")) {
			IdempotencyWebFilter filter = filterMappingTo(handler, new AtomicInteger());
			assertThat(formParameters(filter, MediaType.APPLICATION_FORM_URLENCODED)).as(handler)
				.containsOnly(Map.entry("tag", List.of("b")));
		}
	}

	@Test
	void handlerIsLookedUpOnlyForAFormRequestWithTheKeyHeader() {
		AtomicInteger lookups = new AtomicInteger();
		IdempotencyWebFilter filter = filterMappingTo("fields", lookups);
		assertThat(formParameters(filter, MediaType.APPLICATION_JSON)).containsOnly(Map.entry("tag", List.of("b")));
		MockServerWebExchange unkeyed = MockServerWebExchange.from(MockServerHttpRequest.post("/forms")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.body("account=alice"));
		filter.filter(unkeyed, (chained) -> Mono.empty()).block(Duration.ofSeconds(10));
		assertThat(lookups).hasValue(0);
	}

	private Map<String, List<String>> formParameters(IdempotencyWebFilter filter, MediaType type) {
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.post("/forms?tag=b")
			.header("Idempotency-Key", "k-1")
			.contentType(type)
			.body("account=alice"));
		AtomicReference<BoundRequest> bound = new AtomicReference<>();
		filter.filter(exchange, (chained) -> {
			bound.set(this.binding.bind("forms"));
			return Mono.empty();
		}).block(Duration.ofSeconds(10));
		return bound.get().payload().parameters();
	}

	private IdempotencyWebFilter filterMappingTo(String method, AtomicInteger lookups) {
		HandlerMethod handler = new HandlerMethod(new Forms(),
				Arrays.stream(Forms.class.getDeclaredMethods())
					.filter((each) -> each.getName().equals(method))
					.findFirst()
					.orElseThrow());
		GenericApplicationContext context = new GenericApplicationContext();
		context.registerBean(HandlerMapping.class, () -> (exchange) -> {
			lookups.incrementAndGet();
			return Mono.just(handler);
		});
		context.registerBean(DispatcherHandler.class, () -> new DispatcherHandler(context));
		context.refresh();
		IdempotencyWebFilter filter = new IdempotencyWebFilter(this.keys);
		filter.setApplicationContext(context);
		return filter;
	}

	private BoundRequest run(ServerWebExchange exchange, WebFilterChain rest) {
		AtomicReference<BoundRequest> bound = new AtomicReference<>();
		WebFilterChain chain = (chained) -> {
			bound.set(this.binding.bind("payments"));
			return rest.filter(chained);
		};
		this.filter.filter(exchange, chain).block(Duration.ofSeconds(10));
		return bound.get();
	}

	private static ServerWebExchange withPrincipal(ServerWebExchange exchange, String name) {
		Mono<Principal> principal = Mono.<Principal>just(() -> name).delayElement(Duration.ofMillis(5));
		return new ServerWebExchangeDecorator(exchange) {

			@Override
			@SuppressWarnings("unchecked")
			public <T extends Principal> Mono<T> getPrincipal() {
				return (Mono<T>) principal;
			}

		};
	}

	static class Forms {

		@Idempotent(name = "forms.fields")
		void fields() {
		}

		void plain() {
		}

		@Idempotent(name = "forms.keyed", key = "#p0")
		void keyed(String key) {
		}

		@Idempotent(name = "forms.withPayload", payload = "#p0")
		void withPayload(String account) {
		}

		@Idempotent(name = "forms.body")
		void body(@RequestBody MultiValueMap<String, String> form) {
		}

	}

}
