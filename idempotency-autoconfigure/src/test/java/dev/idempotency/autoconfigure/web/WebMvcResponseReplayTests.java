package dev.idempotency.autoconfigure.web;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * Tests of the replayed responses of Spring MVC request handlers with the default
 * configuration.
 */
@SpringBootTest(classes = ResponseReplayWebTests.TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "spring.main.web-application-type=servlet")
class WebMvcResponseReplayTests extends ResponseReplayWebTests {

	@Override
	boolean replaysCustomHeader() {
		return false;
	}

	@Override
	boolean replaysServerErrors() {
		return false;
	}

}
