package dev.idempotency.autoconfigure.web;

import java.security.Principal;

import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Tests of idempotent Spring WebFlux request handlers over real HTTP on a real Redis.
 */
@SpringBootTest(classes = WebFluxIdempotentHandlerTests.TestApplication.class,
		webEnvironment = WebEnvironment.RANDOM_PORT, properties = "spring.main.web-application-type=reactive")
class WebFluxIdempotentHandlerTests extends IdempotentHandlerWebTests {

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ Payments.class, Lookups.class, OwnErrors.class, OwnErrorsAdvice.class, BroadErrors.class,
			BroadErrorsAdvice.class, TestUserFilter.class })
	static class TestApplication {

	}

	// Authenticates the caller that the test header names, as a security filter would,
	// with a principal that arrives asynchronously
	static class TestUserFilter implements WebFilter, Ordered {

		@Override
		public int getOrder() {
			return Ordered.HIGHEST_PRECEDENCE;
		}

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
			String user = exchange.getRequest().getHeaders().getFirst(USER_HEADER);
			if (user == null) {
				return chain.filter(exchange);
			}
			Mono<Principal> principal = Mono.<Principal>fromSupplier(() -> () -> user)
				.subscribeOn(reactor.core.scheduler.Schedulers.parallel());
			return chain.filter(new org.springframework.web.server.ServerWebExchangeDecorator(exchange) {

				@Override
				@SuppressWarnings("unchecked")
				public <T extends Principal> Mono<T> getPrincipal() {
					return (Mono<T>) principal;
				}

			});
		}

	}

}
