package dev.idempotency.autoconfigure.web;

import dev.idempotency.autoconfigure.web.RequestFingerprintWebTests.Charges;
import dev.idempotency.web.servlet.ServletKeyScopeResolver;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Tests of a key scope resolver of Spring MVC on a real Tomcat.
 */
@SpringBootTest(classes = WebMvcKeyScopeTests.TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "spring.main.web-application-type=servlet")
class WebMvcKeyScopeTests extends KeyScopeWebTests {

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Charges.class)
	static class TestApplication {

		@Bean
		ServletKeyScopeResolver apiKeyScope() {
			return (request) -> request.getHeader(API_KEY_HEADER);
		}

	}

}
