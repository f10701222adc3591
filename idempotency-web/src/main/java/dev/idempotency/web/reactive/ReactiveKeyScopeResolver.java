package dev.idempotency.web.reactive;

import java.security.Principal;

import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * Resolves the scope of the idempotency key of a Spring WebFlux request: requests of one
 * scope share keys, and a request never replays or blocks one of another scope. Define
 * one as a bean to scope keys by API key, tenant or client certificate; the
 * auto-configured one, {@link #principal()}, scopes them by the authenticated principal.
 * <p>
 * Subscribed to by {@link IdempotencyWebFilter} before the handler runs, for each request
 * with the key header, unless scoping is off ({@link dev.idempotency.web.KeyScope#NONE}).
 * A resolver that fails fails the request.
 */
@FunctionalInterface
public interface ReactiveKeyScopeResolver {

	/**
	 * Resolve the scope of a request's key.
	 * @param exchange the exchange of the request
	 * @return the scope, or an empty {@code Mono} for the one scope that all requests
	 * without one (such as anonymous ones) share
	 */
	Mono<String> resolveScope(ServerWebExchange exchange);

	/**
	 * Return a resolver that scopes keys by the name of the request's authenticated
	 * principal ({@link ServerWebExchange#getPrincipal()}, as Spring Security sets it);
	 * anonymous requests share one scope.
	 * @return the resolver
	 */
	static ReactiveKeyScopeResolver principal() {
		return (exchange) -> exchange.getPrincipal().map(Principal::getName);
	}

}
