package dev.idempotency.autoconfigure.web;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * Tests of the replayed responses of Spring MVC request handlers with replayed headers of
 * the application's choosing, a cookie among them.
 */
@SpringBootTest(classes = ResponseReplayWebTests.TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=servlet",
				"idempotency.http.replayed-headers=location, x-custom, SET-COOKIE",
				"idempotency.http.replay-server-errors=true" })
class WebMvcConfiguredResponseReplayTests extends ResponseReplayWebTests {

	@Override
	boolean replaysCustomHeader() {
		return true;
	}

	@Override
	boolean replaysServerErrors() {
		return true;
	}

}
