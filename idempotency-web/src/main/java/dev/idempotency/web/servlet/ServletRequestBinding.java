package dev.idempotency.web.servlet;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.web.KeyScope;
import dev.idempotency.aop.RequestBinding;
import dev.idempotency.web.RequestKeys;
import dev.idempotency.aop.RequestPayload;

import org.springframework.util.Assert;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * {@link RequestBinding} of Spring MVC: the request that the {@code DispatcherServlet}
 * exposes on the current thread through {@link RequestContextHolder}, the scope of its
 * key from a {@link ServletKeyScopeResolver}, its parameters from
 * {@link HttpServletRequest#getParameterMap()}.
 */
public class ServletRequestBinding implements RequestBinding {

	private final RequestKeys keys;

	private final ServletKeyScopeResolver scopes;

	/**
	 * Create a binding that derives keys as the given keys say, scoped by principal.
	 * @param keys the key header and scope
	 */
	public ServletRequestBinding(RequestKeys keys) {
		this(keys, ServletKeyScopeResolver.principal());
	}

	/**
	 * Create a binding that derives keys as the given keys say, in the scopes that a
	 * resolver gives requests.
	 * @param keys the key header and scope
	 * @param scopes the resolver of the scope of each request, unused when
	 * {@link KeyScope#NONE} turns scoping off
	 */
	public ServletRequestBinding(RequestKeys keys, ServletKeyScopeResolver scopes) {
		Assert.notNull(keys, "'keys' must not be null");
		Assert.notNull(scopes, "'scopes' must not be null");
		this.keys = keys;
		this.scopes = scopes;
	}

	@Override
	public BoundRequest bind(String operation) {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (!(attributes instanceof ServletRequestAttributes servlet)) {
			throw new IdempotencyKeyException("Operation '" + operation + "' takes its key from the "
					+ this.keys.header() + " header, but no servlet request is bound to the calling thread: "
					+ "call it through Spring MVC, or give @Idempotent a key expression; the method was not called");
		}
		HttpServletRequest request = servlet.getRequest();
		String scope = (this.keys.scope() != KeyScope.NONE) ? this.scopes.resolveScope(request) : null;
		String key = this.keys.key(operation, Collections.list(request.getHeaders(this.keys.header())), scope);
		return new ServletBoundRequest(key, payload(request), new ServletBoundResponse(servlet.getResponse()));
	}

	// The container's parameters: the query string's and the form's, a multipart form's
	// text fields included
	private static RequestPayload payload(HttpServletRequest request) {
		Map<String, List<String>> parameters = new LinkedHashMap<>();
		request.getParameterMap().forEach((name, values) -> parameters.put(name, Arrays.asList(values)));
		return new RequestPayload(request.getMethod(), request.getRequestURI(), parameters);
	}

	@Override
	public @Nullable Response currentResponse() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		return (attributes instanceof ServletRequestAttributes servlet)
				? new ServletBoundResponse(servlet.getResponse()) : null;
	}

	@Override
	public @Nullable String currentMethod() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		return (attributes instanceof ServletRequestAttributes servlet) ? servlet.getRequest().getMethod() : null;
	}

}
