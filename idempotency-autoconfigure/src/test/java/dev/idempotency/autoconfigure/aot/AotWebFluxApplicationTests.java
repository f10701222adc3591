package dev.idempotency.autoconfigure.aot;

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
					http.assertRunsOnceAndReplays("/orders", "/orders/1");
					http.assertRunsOnceAndReplays("/deferred-orders", "/orders/2");
					assertThat(context.getBean(DeferredOrders.class).placed()).isEqualTo(2);
					AotHttp.assertBodiesHaveBindingHints(refreshed.hints(), AotOrders.OrderRequest.class,
							AotOrders.OrderReceipt.class);
					AotHttp.assertProxyClassWasGenerated(refreshed.hints(), context.getBean(DeferredOrders.class));
				});
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ NettyReactiveWebServerAutoConfiguration.class, HttpHandlerAutoConfiguration.class,
			WebFluxAutoConfiguration.class, JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
			DataRedisAutoConfiguration.class, IdempotencyAutoConfiguration.class,
			IdempotencyWebFluxAutoConfiguration.class })
	static class WebFluxApplication {

		@Bean
		DeferredOrders orders() {
			return new DeferredOrders();
		}

	}

	@RestController
	static class DeferredOrders extends AotOrders {

		@PostMapping("/deferred-orders")
		@Idempotent
		public Mono<ResponseEntity<OrderReceipt>> placeLater(@RequestBody OrderRequest order) {
			return Mono.fromSupplier(() -> created(order));
		}

	}

}
