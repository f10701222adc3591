package dev.idempotency.autoconfigure.endpoint;

import org.springframework.test.context.TestPropertySource;

/**
 * Tests of the idempotency endpoint over HTTP on the in-memory store.
 */
@TestPropertySource(properties = "idempotency.store=memory")
class InMemoryIdempotencyEndpointWebTests extends IdempotencyEndpointWebTests {

	@Override
	protected String storeType() {
		return "memory";
	}

}
