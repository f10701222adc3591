package dev.idempotency.autoconfigure.web;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * Tests of the problem responses of Spring WebFlux request handlers whose outcome could
 * not be recorded or replayed.
 */
@SpringBootTest(classes = OutcomeProblemWebTests.TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "spring.main.web-application-type=reactive")
class WebFluxOutcomeProblemTests extends OutcomeProblemWebTests {

}
