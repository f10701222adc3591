package dev.idempotency.autoconfigure.aot;

import org.apache.catalina.webresources.TomcatURLStreamHandlerFactory;
import org.junit.jupiter.api.Test;

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
		// Tomcat sets the JVM's one URL stream handler factory; a Tomcat of an earlier
		// test,
		// loaded by the test class loader, already did, and this one, loaded again by the
		// forked class loader, would fail with "factory already defined"
		TomcatURLStreamHandlerFactory.disable();
		AotContexts.run(ServletWebServerApplicationContext::new, WebMvcApplication.class, AotHttp.properties(),
				(refreshed) -> {
					ServletWebServerApplicationContext context = refreshed.context();
					assertThat(context.getWebServer()).isInstanceOf(TomcatWebServer.class);
					new AotHttp(context.getWebServer().getPort()).assertRunsOnceAndReplays("/orders", "/orders/1");
					assertThat(context.getBean(AotOrders.class).placed()).isEqualTo(1);
					AotHttp.assertBodiesHaveBindingHints(refreshed.hints(), AotOrders.OrderRequest.class,
							AotOrders.OrderReceipt.class);
					AotHttp.assertProxyClassWasGenerated(refreshed.hints(), context.getBean(AotOrders.class));
				});
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ TomcatServletWebServerAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
			WebMvcAutoConfiguration.class, JacksonAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class,
			DataRedisAutoConfiguration.class, IdempotencyAutoConfiguration.class,
			IdempotencyWebMvcAutoConfiguration.class })
	static class WebMvcApplication {

		@Bean
		AotOrders orders() {
			return new AotOrders();
		}

	}

}
