package dev.idempotency.web.reactive;

import java.security.Principal;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.idempotency.web.KeyScope;
import dev.idempotency.web.RequestKeys;

import org.springframework.core.Ordered;
import org.springframework.util.Assert;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Makes the exchange visible to idempotent WebFlux handler methods, which
 * {@link ReactiveRequestBinding} finds it through: WebFlux calls a handler method on
 * whichever thread completes its arguments, with no request bound to that thread.
 * <p>
 * The filter holds the exchange on the current thread while it subscribes to the rest of
 * the chain, and while the request body, form data, multipart data, principal and session
 * deliver each of their signals (a handler with a {@code @RequestBody} is called from the
 * signal that completes the body), and puts it in the chain's Reactor context. For a
 * request with the key header, with {@link KeyScope#PRINCIPAL}, it resolves the principal
 * first, as {@link ServerWebExchange#getPrincipal()} is asynchronous, and keeps its name
 * on the exchange. It runs last of the web filters so that it sees the principal every
 * other filter sets. A handler called on another scheduler (such as WebFlux's blocking
 * execution) cannot see the exchange, and its call fails with an
 * {@link dev.idempotency.IdempotencyKeyException} saying so.
 */
public class IdempotencyWebFilter implements WebFilter, Ordered {

	private static final String PRINCIPAL_ATTRIBUTE = IdempotencyWebFilter.class.getName() + ".principal";

	private final RequestKeys keys;

	/**
	 * Create a filter for requests whose keys are derived as the given keys say.
	 * @param keys the key header and scope
	 */
	public IdempotencyWebFilter(RequestKeys keys) {
		Assert.notNull(keys, "'keys' must not be null");
		this.keys = keys;
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		BoundExchange bound = new BoundExchange(exchange);
		Mono<Void> rest = new BoundExchange.BoundMono<>(Mono.defer(() -> chain.filter(bound))
			.contextWrite((context) -> context.put(ExchangeHolder.CONTEXT_KEY, bound)), bound);
		if (this.keys.scope() == KeyScope.NONE
				|| !exchange.getRequest().getHeaders().containsHeader(this.keys.header())) {
			return rest;
		}
		return exchange.getPrincipal()
			.map(Principal::getName)
			.map(ResolvedPrincipal::new)
			.defaultIfEmpty(new ResolvedPrincipal(null))
			.flatMap((principal) -> {
				bound.getAttributes().put(PRINCIPAL_ATTRIBUTE, principal);
				return rest;
			});
	}

	/**
	 * Return the name of the principal of an exchange, as this filter resolved it.
	 * @param exchange the exchange
	 * @return the name, or {@code null} for an anonymous request
	 * @throws IllegalStateException if the filter did not resolve it
	 */
	static @Nullable String principal(ServerWebExchange exchange) {
		ResolvedPrincipal principal = exchange.getAttribute(PRINCIPAL_ATTRIBUTE);
		Assert.state(principal != null, "The principal of the request was not resolved: is "
				+ IdempotencyWebFilter.class.getSimpleName() + " registered as a WebFilter?");
		return principal.name();
	}

	private record ResolvedPrincipal(@Nullable String name) {

	}

}
