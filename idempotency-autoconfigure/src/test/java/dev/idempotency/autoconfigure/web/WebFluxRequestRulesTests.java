package dev.idempotency.autoconfigure.web;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;

/**
 * Tests of which requests an idempotent handler of Spring WebFlux takes as idempotent,
 * and with which keys, on a real Reactor Netty.
 */
@SpringBootTest(classes = WebFluxRequestRulesTests.TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "spring.main.web-application-type=reactive")
class WebFluxRequestRulesTests extends RequestRulesWebTests {

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Orders.class)
	static class TestApplication {

	}

}
