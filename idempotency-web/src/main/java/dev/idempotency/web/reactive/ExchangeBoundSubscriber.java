package dev.idempotency.web.reactive;

import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.util.context.Context;

import org.springframework.web.server.ServerWebExchange;

/**
 * Delivers each signal to a subscriber with an exchange held on the current thread: a
 * handler method that WebFlux calls from such a signal finds its exchange.
 *
 * @param <T> the type of the values
 * @param actual the subscriber
 * @param exchange the exchange to hold
 */
record ExchangeBoundSubscriber<T>(CoreSubscriber<? super T> actual,
		ServerWebExchange exchange) implements CoreSubscriber<T> {

	@Override
	public Context currentContext() {
		return this.actual.currentContext();
	}

	@Override
	public void onSubscribe(Subscription subscription) {
		ServerWebExchange outer = ExchangeHolder.set(this.exchange);
		try {
			this.actual.onSubscribe(subscription);
		}
		finally {
			ExchangeHolder.restore(outer);
		}
	}

	@Override
	public void onNext(T value) {
		ServerWebExchange outer = ExchangeHolder.set(this.exchange);
		try {
			this.actual.onNext(value);
		}
		finally {
			ExchangeHolder.restore(outer);
		}
	}

	@Override
	public void onError(Throwable error) {
		ServerWebExchange outer = ExchangeHolder.set(this.exchange);
		try {
			this.actual.onError(error);
		}
		finally {
			ExchangeHolder.restore(outer);
		}
	}

	@Override
	public void onComplete() {
		ServerWebExchange outer = ExchangeHolder.set(this.exchange);
		try {
			this.actual.onComplete();
		}
		finally {
			ExchangeHolder.restore(outer);
		}
	}

}
