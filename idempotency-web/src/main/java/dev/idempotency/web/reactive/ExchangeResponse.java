package dev.idempotency.web.reactive;

import dev.idempotency.aop.RequestBinding.Response;
import dev.idempotency.web.IdempotencyProblems;

import org.springframework.http.server.reactive.ServerHttpResponse;

/**
 * The response of an exchange that {@link ReactiveRequestBinding} exposes, which a replay
 * marks with the replayed header.
 *
 * @param response the exchange's response
 */
record ExchangeResponse(ServerHttpResponse response) implements Response {

	@Override
	public void replayed() {
		this.response.getHeaders().set(IdempotencyProblems.REPLAYED_HEADER, "true");
	}

}
