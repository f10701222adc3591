package dev.idempotency.web.reactive;

import dev.idempotency.aop.RequestBinding.BoundRequest;
import dev.idempotency.aop.RequestPayload;

/**
 * A request that {@link ReactiveRequestBinding} bound: its key, its payload and the
 * response of its exchange, which a replay marks.
 *
 * @param key the key the request derived
 * @param payload what the request's fingerprint is made of
 * @param response the response of the exchange
 */
record ExchangeBoundRequest(String key, RequestPayload payload, ExchangeResponse response) implements BoundRequest {

	@Override
	public void replayed() {
		this.response.replayed();
	}

}
