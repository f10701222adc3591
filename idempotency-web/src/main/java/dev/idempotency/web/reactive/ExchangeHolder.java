package dev.idempotency.web.reactive;

import org.jspecify.annotations.Nullable;

import org.springframework.web.server.ServerWebExchange;

/**
 * Holds the exchange whose signals the current thread is delivering, set by
 * {@link IdempotencyWebFilter} around them.
 */
final class ExchangeHolder {

	/**
	 * Key of the exchange in the Reactor context of the filter chain.
	 */
	static final String CONTEXT_KEY = ExchangeHolder.class.getName() + ".exchange";

	private static final ThreadLocal<ServerWebExchange> CURRENT = new ThreadLocal<>();

	private ExchangeHolder() {
	}

	static @Nullable ServerWebExchange get() {
		return CURRENT.get();
	}

	static @Nullable ServerWebExchange set(ServerWebExchange exchange) {
		ServerWebExchange outer = CURRENT.get();
		CURRENT.set(exchange);
		return outer;
	}

	static void restore(@Nullable ServerWebExchange outer) {
		if (outer != null) {
			CURRENT.set(outer);
		}
		else {
			CURRENT.remove();
		}
	}

}
