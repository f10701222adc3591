package dev.idempotency.web.reactive;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.aop.RequestBinding;
import dev.idempotency.web.RequestKeys;
import dev.idempotency.aop.RequestPayload;
import dev.idempotency.web.reactive.IdempotencyWebFilter.ResolvedRequest;

import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.util.Assert;
import org.springframework.web.server.ServerWebExchange;

/**
 * {@link RequestBinding} of Spring WebFlux: the exchange that
 * {@link IdempotencyWebFilter} holds on the thread calling the handler, the scope of its
 * key as the filter resolved it, its parameters as the filter read them (the form's
 * fields included for a handler that fingerprints them).
 */
public class ReactiveRequestBinding implements RequestBinding {

	private final RequestKeys keys;

	/**
	 * Create a binding that derives keys as the given keys say; the
	 * {@link IdempotencyWebFilter} of the application must use the same.
	 * @param keys the key header and scope
	 */
	public ReactiveRequestBinding(RequestKeys keys) {
		Assert.notNull(keys, "'keys' must not be null");
		this.keys = keys;
	}

	@Override
	public BoundRequest bind(String operation) {
		ServerWebExchange exchange = ExchangeHolder.get();
		if (exchange == null) {
			throw new IdempotencyKeyException("Operation '" + operation + "' takes its key from the "
					+ this.keys.header() + " header, but no WebFlux exchange is bound to the calling thread: "
					+ "it is bound by " + IdempotencyWebFilter.class.getSimpleName()
					+ " while the request is subscribed and its body delivered, so a handler called on another "
					+ "scheduler (such as WebFlux's blocking execution) cannot find it; give @Idempotent a key "
					+ "expression there; the method was not called");
		}
		ServerHttpRequest request = exchange.getRequest();
		List<String> values = request.getHeaders().getOrEmpty(this.keys.header());
		// The filter resolves nothing for a request without the key header, whose key
		// fails
		ResolvedRequest resolved = values.isEmpty() ? ResolvedRequest.NOTHING : IdempotencyWebFilter.resolved(exchange);
		String key = this.keys.key(operation, values, resolved.scope());
		RequestPayload payload = new RequestPayload(request.getMethod().name(), request.getPath().value(),
				resolved.parameters());
		return new ExchangeBoundRequest(key, payload, new ExchangeResponse(exchange.getResponse()));
	}

	@Override
	public @Nullable Response currentResponse() {
		ServerWebExchange exchange = ExchangeHolder.get();
		return (exchange != null) ? new ExchangeResponse(exchange.getResponse()) : null;
	}

	@Override
	public @Nullable String currentMethod() {
		ServerWebExchange exchange = ExchangeHolder.get();
		return (exchange != null) ? exchange.getRequest().getMethod().name() : null;
	}

}
