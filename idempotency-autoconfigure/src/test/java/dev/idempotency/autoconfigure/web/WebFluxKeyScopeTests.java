package dev.idempotency.autoconfigure.web;

import reactor.core.publisher.Mono;

import dev.idempotency.autoconfigure.web.RequestFingerprintWebTests.Charges;
import dev.idempotency.web.reactive.ReactiveKeyScopeResolver;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Tests of a key scope resolver of Spring WebFlux on a real Netty.
 */
@SpringBootTest(classes = WebFluxKeyScopeTests.TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "spring.main.web-application-type=reactive")
class WebFluxKeyScopeTests extends KeyScopeWebTests {

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Charges.class)
	static class TestApplication {

		@Bean
		ReactiveKeyScopeResolver apiKeyScope() {
			return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst(API_KEY_HEADER));
		}

	}

}
