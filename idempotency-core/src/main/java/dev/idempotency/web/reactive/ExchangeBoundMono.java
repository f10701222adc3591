package dev.idempotency.web.reactive;

import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * The rest of the filter chain, subscribed with the exchange on the current thread: a
 * handler whose arguments are ready at once is called during the subscription.
 */
final class ExchangeBoundMono extends Mono<Void> {

	private final Mono<Void> source;

	private final ServerWebExchange exchange;

	ExchangeBoundMono(Mono<Void> source, ServerWebExchange exchange) {
		this.source = source;
		this.exchange = exchange;
	}

	@Override
	public void subscribe(CoreSubscriber<? super Void> actual) {
		ServerWebExchange outer = ExchangeHolder.set(this.exchange);
		try {
			this.source.subscribe(actual);
		}
		finally {
			ExchangeHolder.restore(outer);
		}
	}

}
