package dev.idempotency.web.reactive;

import java.security.Principal;

import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import org.springframework.web.server.WebSession;

/**
 * An exchange whose request body, form data, multipart data, principal and session
 * deliver their signals with the exchange held on the current thread, since WebFlux calls
 * a handler method from the signal that completes its last argument, and a
 * {@code Principal} or {@code WebSession} argument may complete on another thread (a
 * security filter's or a session store's).
 */
final class BoundExchange extends ServerWebExchangeDecorator {

	private final ServerHttpRequest request;

	BoundExchange(ServerWebExchange delegate) {
		super(delegate);
		this.request = new ServerHttpRequestDecorator(delegate.getRequest()) {

			@Override
			public Flux<DataBuffer> getBody() {
				return new BoundFlux<>(super.getBody(), BoundExchange.this);
			}

		};
	}

	@Override
	public ServerHttpRequest getRequest() {
		return this.request;
	}

	@Override
	public Mono<MultiValueMap<String, String>> getFormData() {
		return new BoundMono<>(super.getFormData(), this);
	}

	@Override
	public Mono<MultiValueMap<String, Part>> getMultipartData() {
		return new BoundMono<>(super.getMultipartData(), this);
	}

	@Override
	public <T extends Principal> Mono<T> getPrincipal() {
		return new BoundMono<>(super.getPrincipal(), this);
	}

	@Override
	public Mono<WebSession> getSession() {
		return new BoundMono<>(super.getSession(), this);
	}

	/**
	 * A {@code Mono} subscribed to and delivered with the exchange on the current thread.
	 */
	static final class BoundMono<T> extends Mono<T> {

		private final Mono<T> source;

		private final ServerWebExchange exchange;

		BoundMono(Mono<T> source, ServerWebExchange exchange) {
			this.source = source;
			this.exchange = exchange;
		}

		@Override
		public void subscribe(CoreSubscriber<? super T> actual) {
			ServerWebExchange outer = ExchangeHolder.set(this.exchange);
			try {
				this.source.subscribe(new ExchangeBoundSubscriber<>(actual, this.exchange));
			}
			finally {
				ExchangeHolder.restore(outer);
			}
		}

	}

	private static final class BoundFlux<T> extends Flux<T> {

		private final Flux<T> source;

		private final ServerWebExchange exchange;

		BoundFlux(Flux<T> source, ServerWebExchange exchange) {
			this.source = source;
			this.exchange = exchange;
		}

		@Override
		public void subscribe(CoreSubscriber<? super T> actual) {
			this.source.subscribe(new ExchangeBoundSubscriber<>(actual, this.exchange));
		}

	}

}
