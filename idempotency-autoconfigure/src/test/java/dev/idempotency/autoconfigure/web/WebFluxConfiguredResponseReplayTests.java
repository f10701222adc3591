package dev.idempotency.autoconfigure.web;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * Tests of the replayed responses of Spring WebFlux request handlers with replayed
 * headers of the application's choosing, a cookie among them, and server errors replayed.
 */
@SpringBootTest(classes = ResponseReplayWebTests.TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive",
				"idempotency.http.replayed-headers=location, x-custom, SET-COOKIE",
				"idempotency.http.replay-server-errors=true" })
class WebFluxConfiguredResponseReplayTests extends ResponseReplayWebTests {

	@Override
	boolean replaysCustomHeader() {
		return true;
	}

	@Override
	boolean replaysServerErrors() {
		return true;
	}

}
