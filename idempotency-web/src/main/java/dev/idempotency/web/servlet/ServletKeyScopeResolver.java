package dev.idempotency.web.servlet;

import java.security.Principal;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Resolves the scope of the idempotency key of a Spring MVC request: requests of one
 * scope share keys, and a request never replays or blocks one of another scope. Define
 * one as a bean to scope keys by API key, tenant or client certificate; the
 * auto-configured one, {@link #principal()}, scopes them by the authenticated principal.
 * <p>
 * Called on the request's thread before the handler runs, for each request to a handler
 * that takes its key from the key header, unless scoping is off
 * ({@link dev.idempotency.web.KeyScope#NONE}).
 */
@FunctionalInterface
public interface ServletKeyScopeResolver {

	/**
	 * Resolve the scope of a request's key.
	 * @param request the request
	 * @return the scope, or {@code null} for the one scope that all requests without one
	 * (such as anonymous ones) share
	 */
	@Nullable String resolveScope(HttpServletRequest request);

	/**
	 * Return a resolver that scopes keys by the name of the request's authenticated
	 * principal ({@link HttpServletRequest#getUserPrincipal()}, as Spring Security sets
	 * it); anonymous requests share one scope.
	 * @return the resolver
	 */
	static ServletKeyScopeResolver principal() {
		return (request) -> {
			Principal principal = request.getUserPrincipal();
			return (principal != null) ? principal.getName() : null;
		};
	}

}
