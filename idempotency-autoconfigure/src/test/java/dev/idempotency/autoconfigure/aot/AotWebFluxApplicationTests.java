package dev.idempotency.autoconfigure.aot;

import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import dev.idempotency.Idempotent;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.web.reactive.IdempotencyWebFluxAutoConfiguration;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.reactor.netty.NettyWebServer;
import org.springframework.boot.reactor.netty.autoconfigure.NettyReactiveWebServerAutoConfiguration;
import org.springframework.boot.web.server.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring WebFlux application with an idempotent request handler refreshed from
 * AOT-generated code on Reactor Netty and a real Redis: a retry with the same
 * {@code Idempotency-Key} is replayed without running the handler, the same key with
 * another body is refused, whether the handler returns the entity or a {@code Mono} of
 * it; and the build gathers the binding hints of the request and response bodies.
 */
@CompileWithForkedClassLoader
class AotWebFluxApplicationTests {

	@Test
	void idempotentHandlerRunsOnceAndReplaysFromGeneratedCode() {
		AotContexts.run(ReactiveWebServerApplicationContext::new, WebFluxApplication.class, AotHttp.properties(),
				(refreshed) -> {
					ReactiveWebServerApplicationContext context = refreshed.context();
					assertThat(context.getWebServer()).isInstanceOf(NettyWebServer.class);
					AotHttp http = new AotHttp(context.getWebServer().getPort());
					String key = UUID.randomUUID().toString();
					HttpResponse<byte[]> first = http.post("/orders", key, AotHttp.ORDER);
					HttpResponse<byte[]> retry = http.post("/orders", key, AotHttp.ORDER);
					HttpResponse<byte[]> reused = http.post("/orders", key, AotHttp.OTHER_ORDER);
					AotHttp.assertRunsOnceAndReplays(first, retry, reused, "/orders/1");
					assertThat(context.getBean(Orders.class).placed()).isEqualTo(1);
					String deferredKey = UUID.randomUUID().toString();
					HttpResponse<byte[]> deferred = http.post("/deferred-orders", deferredKey, AotHttp.ORDER);
					HttpResponse<byte[]> deferredRetry = http.post("/deferred-orders", deferredKey, AotHttp.ORDER);
					HttpResponse<byte[]> deferredReused = http.post("/deferred-orders", deferredKey,
							AotHttp.OTHER_ORDER);
					AotHttp.assertRunsOnceAndReplays(deferred, deferredRetry, deferredReused, "/orders/2");
					assertThat(context.getBean(Orders.class).placed()).isEqualTo(2);
					AotHttp.assertBodiesHaveBindingHints(refreshed.hints(), OrderRequest.class, OrderReceipt.class);
					AotHttp.assertProxyClassWasGenerated(refreshed.hints(), context.getBean(Orders.class));
				});
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ NettyReactiveWebServerAutoConfiguration.class, HttpHandlerAutoConfiguration.class,
			WebFluxAutoConfiguration.class, JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
			DataRedisAutoConfiguration.class, IdempotencyAutoConfiguration.class,
			IdempotencyWebFluxAutoConfiguration.class })
	static class WebFluxApplication {

		@Bean
		Orders orders() {
			return new Orders();
		}

	}

	@RestController
	static class Orders {

		// Read through a method: the bean is a proxy by subclass, whose own fields are
		// unset
		private final AtomicInteger placed = new AtomicInteger();

		public int placed() {
			return this.placed.get();
		}

		@PostMapping("/orders")
		@Idempotent
		public ResponseEntity<OrderReceipt> place(@RequestBody OrderRequest order) {
			return created(order);
		}

		@PostMapping("/deferred-orders")
		@Idempotent
		public Mono<ResponseEntity<OrderReceipt>> placeLater(@RequestBody OrderRequest order) {
			return Mono.fromSupplier(() -> created(order));
		}

		private ResponseEntity<OrderReceipt> created(OrderRequest order) {
			int number = this.placed.incrementAndGet();
			return ResponseEntity.status(HttpStatus.CREATED)
				.header("Location", "/orders/" + number)
				.body(new OrderReceipt("o-" + number, order.item(), order.quantity()));
		}

	}

	record OrderRequest(String item, int quantity) {
	}

	record OrderReceipt(String id, String item, int quantity) {
	}

}
