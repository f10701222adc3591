package dev.idempotency.web.servlet;

import dev.idempotency.aop.RequestBinding.BoundRequest;
import dev.idempotency.aop.RequestPayload;

/**
 * A request that {@link ServletRequestBinding} bound: its key, its payload and its
 * response, which a replay marks.
 *
 * @param key the key the request derived
 * @param payload what the request's fingerprint is made of
 * @param response the response of the request
 */
record ServletBoundRequest(String key, RequestPayload payload, ServletBoundResponse response) implements BoundRequest {

	@Override
	public void replayed() {
		this.response.replayed();
	}

}
