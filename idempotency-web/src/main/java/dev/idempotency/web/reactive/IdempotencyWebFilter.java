package dev.idempotency.web.reactive;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.idempotency.web.KeyScope;
import dev.idempotency.web.RequestHandlers;
import dev.idempotency.web.RequestKeys;

import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.core.MethodClassKey;
import org.springframework.core.Ordered;
import org.springframework.http.MediaType;
import org.springframework.http.codec.multipart.FormFieldPart;
import org.springframework.util.Assert;
import org.springframework.util.CollectionUtils;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.HandlerMapping;
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
 * request with the key header it first resolves what the key and the fingerprint need,
 * since WebFlux offers them only asynchronously, and keeps them on the exchange: with
 * {@link KeyScope#PRINCIPAL} the scope of its key from a {@link ReactiveKeyScopeResolver}
 * (by default the principal's name, as every other filter leaves it), and the request's
 * parameters. Those are the query string's and, for an
 * {@code application/x-www-form-urlencoded} or {@code multipart/form-data} request whose
 * handler fingerprints its form (see {@link RequestHandlers#fingerprintsForm}), the
 * form's fields, read through {@link ServerWebExchange#getFormData()} or
 * {@link ServerWebExchange#getMultipartData()}, which keep the form for the handler (read
 * it from there, with {@code @ModelAttribute} or {@code @RequestPart}). To tell that
 * handler, the filter looks it up, for such a request only, through the handler mappings
 * of the application context's {@link DispatcherHandler}, as the dispatcher will; every
 * other handler reads the body as it would without the key header. Outside an application
 * context, where it cannot look handlers up, it reads the form of every such request. It
 * runs last of the web filters so that it sees the principal every other filter sets. A
 * handler called on another scheduler (such as WebFlux's blocking execution) cannot see
 * the exchange, and its call fails with an
 * {@link dev.idempotency.IdempotencyKeyException} saying so.
 */
public class IdempotencyWebFilter implements WebFilter, Ordered, ApplicationContextAware {

	private static final String RESOLVED_ATTRIBUTE = IdempotencyWebFilter.class.getName() + ".resolved";

	private final RequestKeys keys;

	private final ReactiveKeyScopeResolver scopes;

	// Per handler method, whether its fingerprint needs the form
	private final Map<MethodClassKey, Boolean> formHandlers = new ConcurrentHashMap<>();

	private @Nullable ApplicationContext context;

	// Looked up on the first form request with the key header, once the dispatcher has
	// them: null when there is no dispatcher to ask
	private @Nullable List<HandlerMapping> handlerMappings;

	private volatile boolean mappingsResolved;

	/**
	 * Create a filter for requests whose keys are derived as the given keys say, scoped
	 * by principal.
	 * @param keys the key header and scope
	 */
	public IdempotencyWebFilter(RequestKeys keys) {
		this(keys, ReactiveKeyScopeResolver.principal());
	}

	/**
	 * Create a filter for requests whose keys are derived as the given keys say, in the
	 * scopes that a resolver gives requests.
	 * @param keys the key header and scope
	 * @param scopes the resolver of the scope of each request, unused when
	 * {@link KeyScope#NONE} turns scoping off
	 */
	public IdempotencyWebFilter(RequestKeys keys, ReactiveKeyScopeResolver scopes) {
		Assert.notNull(keys, "'keys' must not be null");
		Assert.notNull(scopes, "'scopes' must not be null");
		this.keys = keys;
		this.scopes = scopes;
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void setApplicationContext(ApplicationContext context) {
		this.context = context;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		BoundExchange bound = new BoundExchange(exchange);
		Mono<Void> rest = new BoundExchange.BoundMono<>(Mono.defer(() -> chain.filter(bound))
			.contextWrite((context) -> context.put(ExchangeHolder.CONTEXT_KEY, bound)), bound);
		if (!exchange.getRequest().getHeaders().containsHeader(this.keys.header())) {
			return rest;
		}
		return Mono.zip(scope(exchange), parameters(exchange)).flatMap((resolved) -> {
			bound.getAttributes()
				.put(RESOLVED_ATTRIBUTE, new ResolvedRequest(resolved.getT1().orElse(null), resolved.getT2()));
			return rest;
		});
	}

	private Mono<Optional<String>> scope(ServerWebExchange exchange) {
		if (this.keys.scope() == KeyScope.NONE) {
			return Mono.just(Optional.empty());
		}
		return Mono.defer(() -> this.scopes.resolveScope(exchange)).map(Optional::of).defaultIfEmpty(Optional.empty());
	}

	// The form is read here, before the handler, as its fingerprint needs it; the
	// exchange keeps it for the handler (@ModelAttribute, @RequestPart, getFormData())
	private Mono<MultiValueMap<String, String>> parameters(ServerWebExchange exchange) {
		// Lists of its own: a form field may add to a query parameter's
		MultiValueMap<String, String> parameters = new LinkedMultiValueMap<>();
		parameters.addAll(exchange.getRequest().getQueryParams());
		MediaType type = exchange.getRequest().getHeaders().getContentType();
		if (type == null) {
			return Mono.just(parameters);
		}
		if (MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(type)) {
			return fingerprintsForm(exchange).flatMap((form) -> form ? exchange.getFormData().map((fields) -> {
				fields.forEach(parameters::addAll);
				return parameters;
			}) : Mono.just(parameters));
		}
		if (MediaType.MULTIPART_FORM_DATA.isCompatibleWith(type)) {
			return fingerprintsForm(exchange).flatMap((form) -> form ? exchange.getMultipartData().map((parts) -> {
				parts.forEach((name, values) -> values.stream()
					.filter(FormFieldPart.class::isInstance)
					.forEach((field) -> parameters.add(name, ((FormFieldPart) field).value())));
				return parameters;
			}) : Mono.just(parameters));
		}
		return Mono.just(parameters);
	}

	// Whether the handler that the dispatcher will find fingerprints the form. Any other
	// handler may read the body itself (a @RequestBody Flux<Part>), which it could not
	// once the form is read. No handler, or a failed lookup, is the dispatcher's to
	// answer.
	private Mono<Boolean> fingerprintsForm(ServerWebExchange exchange) {
		List<HandlerMapping> mappings = handlerMappings();
		if (mappings == null) {
			return Mono.just(true);
		}
		return Flux.fromIterable(mappings)
			.concatMap((mapping) -> mapping.getHandler(exchange))
			.next()
			.map((handler) -> (handler instanceof HandlerMethod method)
					&& this.formHandlers.computeIfAbsent(new MethodClassKey(method.getMethod(), method.getBeanType()),
							(key) -> RequestHandlers.fingerprintsForm(method.getMethod(), method.getBeanType())))
			.onErrorResume((ex) -> Mono.just(false))
			.defaultIfEmpty(false);
	}

	private @Nullable List<HandlerMapping> handlerMappings() {
		if (!this.mappingsResolved) {
			// Racing threads find the same mappings; the volatile write publishes them
			DispatcherHandler dispatcher = (this.context != null)
					? this.context.getBeanProvider(DispatcherHandler.class).getIfUnique() : null;
			this.handlerMappings = (dispatcher != null) ? dispatcher.getHandlerMappings() : null;
			this.mappingsResolved = true;
		}
		return this.handlerMappings;
	}

	/**
	 * Return the scope and the parameters of an exchange, as this filter resolved them.
	 * @param exchange the exchange
	 * @return the scope and parameters
	 * @throws IllegalStateException if the filter did not resolve them
	 */
	static ResolvedRequest resolved(ServerWebExchange exchange) {
		ResolvedRequest resolved = exchange.getAttribute(RESOLVED_ATTRIBUTE);
		Assert.state(resolved != null, "The scope and parameters of the request were not resolved: is "
				+ IdempotencyWebFilter.class.getSimpleName() + " registered as a WebFilter?");
		return resolved;
	}

	/**
	 * What the filter resolves of a request with the key header before its handler runs.
	 *
	 * @param scope the scope of the key, or {@code null} for a request without one or
	 * when keys are not scoped
	 * @param parameters the query and form parameters
	 */
	record ResolvedRequest(@Nullable String scope, MultiValueMap<String, String> parameters) {

		static final ResolvedRequest NOTHING = new ResolvedRequest(null,
				CollectionUtils.unmodifiableMultiValueMap(new LinkedMultiValueMap<>()));

	}

}
