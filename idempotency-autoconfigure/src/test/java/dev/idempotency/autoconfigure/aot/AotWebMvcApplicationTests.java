package dev.idempotency.autoconfigure.aot;

import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.web.servlet.IdempotencyWebMvcAutoConfiguration;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
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
 * A Spring MVC application with an idempotent request handler refreshed from
 * AOT-generated code on Tomcat and a real Redis: a retry with the same
 * {@code Idempotency-Key} is replayed without running the handler, the same key with
 * another body is refused; and the build gathers the binding hints of the request and
 * response bodies.
 */
@CompileWithForkedClassLoader
class AotWebMvcApplicationTests {

	@Test
	void idempotentHandlerRunsOnceAndReplaysFromGeneratedCode() {
		AotContexts.run(ServletWebServerApplicationContext::new, WebMvcApplication.class, AotHttp.properties(),
				(refreshed) -> {
					ServletWebServerApplicationContext context = refreshed.context();
					assertThat(context.getWebServer()).isInstanceOf(TomcatWebServer.class);
					AotHttp http = new AotHttp(context.getWebServer().getPort());
					String key = UUID.randomUUID().toString();
					HttpResponse<byte[]> first = http.post("/orders", key, AotHttp.ORDER);
					HttpResponse<byte[]> retry = http.post("/orders", key, AotHttp.ORDER);
					HttpResponse<byte[]> reused = http.post("/orders", key, AotHttp.OTHER_ORDER);
					AotHttp.assertRunsOnceAndReplays(first, retry, reused, "/orders/1");
					assertThat(context.getBean(Orders.class).placed()).isEqualTo(1);
					AotHttp.assertBodiesHaveBindingHints(refreshed.hints(), OrderRequest.class, OrderReceipt.class);
					AotHttp.assertProxyClassWasGenerated(refreshed.hints(), context.getBean(Orders.class));
				});
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ TomcatServletWebServerAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
			WebMvcAutoConfiguration.class, JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
			DataRedisAutoConfiguration.class, IdempotencyAutoConfiguration.class,
			IdempotencyWebMvcAutoConfiguration.class })
	static class WebMvcApplication {

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
