package dev.idempotency.autoconfigure.web;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;

/**
 * Tests of the request fingerprint of Spring WebFlux handlers on a real Netty.
 */
@SpringBootTest(classes = WebFluxRequestFingerprintTests.TestApplication.class,
		webEnvironment = WebEnvironment.RANDOM_PORT, properties = "spring.main.web-application-type=reactive")
class WebFluxRequestFingerprintTests extends RequestFingerprintWebTests {

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Charges.class)
	static class TestApplication {

	}

}
