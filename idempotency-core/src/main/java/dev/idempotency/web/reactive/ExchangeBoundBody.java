package dev.idempotency.web.reactive;

import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.util.context.Context;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.web.server.ServerWebExchange;

/**
 * A request body that delivers each of its signals with the exchange on the current
 * thread: a handler with a {@code @RequestBody} argument is called from the signal that
 * completes that argument, on whichever thread the server delivers the body.
 */
final class ExchangeBoundBody extends Flux<DataBuffer> {

	private final Flux<DataBuffer> source;

	private final ExchangeReference exchange;

	ExchangeBoundBody(Flux<DataBuffer> source, ExchangeReference exchange) {
		this.source = source;
		this.exchange = exchange;
	}

	@Override
	public void subscribe(CoreSubscriber<? super DataBuffer> actual) {
		this.source.subscribe(new BoundSubscriber(actual, this.exchange.get()));
	}

	/**
	 * The exchange a request belongs to, known only once the exchange is built around the
	 * request.
	 */
	static final class ExchangeReference {

		private volatile ServerWebExchange exchange;

		ExchangeReference(ServerWebExchange exchange) {
			this.exchange = exchange;
		}

		ServerWebExchange get() {
			return this.exchange;
		}

		void set(ServerWebExchange exchange) {
			this.exchange = exchange;
		}

	}

	private record BoundSubscriber(CoreSubscriber<? super DataBuffer> actual,
			ServerWebExchange exchange) implements CoreSubscriber<DataBuffer> {

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
		public void onNext(DataBuffer buffer) {
			ServerWebExchange outer = ExchangeHolder.set(this.exchange);
			try {
				this.actual.onNext(buffer);
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

}
