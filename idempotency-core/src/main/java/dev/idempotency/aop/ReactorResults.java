package dev.idempotency.aop;

import java.util.concurrent.CompletionStage;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import dev.idempotency.engine.AsyncInvocation;
import dev.idempotency.engine.Fingerprint;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.Invocation;
import dev.idempotency.engine.Operation;
import dev.idempotency.aop.RequestBinding.Response;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * Runs {@code @Idempotent} methods that return a Reactor {@code Mono}. The only class
 * here that touches Reactor: loaded on the first call of such a method, so that Reactor
 * stays optional. Its methods take and return only JDK types, so that verifying its
 * callers needs no Reactor class either.
 * <p>
 * Each subscription is one call: it acquires when subscribed, and runs the method through
 * its own clone of the invocation (an invocation proceeds only once), then subscribes to
 * the method's {@code Mono}, in the subscriber's Reactor context (a security context, a
 * trace, what the application wrote), which subscribing through a future would otherwise
 * drop. The caller's {@code Mono} ends only after the record has completed; cancelling it
 * cancels the subscription to the method's {@code Mono} and releases the record.
 */
final class ReactorResults {

	private ReactorResults() {
	}

	/**
	 * Return the {@code Mono} of one call.
	 * @param engine the engine
	 * @param operation the operation
	 * @param key the evaluated key
	 * @param fingerprint the payload fingerprint, or {@code null}
	 * @param invocation the method invocation, cloned per subscription
	 * @param response the response of the request handler being called, marked when a
	 * subscription replays, or {@code null}
	 * @return the caller's {@code Mono}
	 */
	static Object execute(IdempotencyEngine engine, Operation operation, @Nullable Object key,
			@Nullable Fingerprint fingerprint, MethodInvocation invocation, @Nullable Response response) {
		return Mono.deferContextual((context) -> Mono.fromFuture(
				engine.executeAsync(operation, key, fingerprint, new Subscription(invocation, response, context)),
				false));
	}

	/**
	 * Return the failed {@code Mono} of a call refused before it reached the engine.
	 * @param ex why it was refused
	 * @return the caller's {@code Mono}
	 */
	static Object error(Throwable ex) {
		return Mono.error(ex);
	}

	// One subscription: the method runs through its own clone of the invocation
	private record Subscription(MethodInvocation invocation, @Nullable Response response,
			ContextView context) implements AsyncInvocation {

		@Override
		public @Nullable CompletionStage<?> start() throws Throwable {
			return subscribe(invocable(this.invocation).proceed(), this.context);
		}

		@Override
		public void replayed() {
			if (this.response != null) {
				this.response.replayed();
			}
		}

		@Override
		public boolean isLazy() {
			return true;
		}

	}

	private static Invocation invocable(MethodInvocation invocation) {
		if (invocation instanceof ProxyMethodInvocation proxied) {
			return proxied.invocableClone()::proceed;
		}
		throw new IllegalStateException("@Idempotent methods that return a Mono run once per subscription, which "
				+ "needs a Spring AOP ProxyMethodInvocation; got " + invocation.getClass().getName());
	}

	// Completes empty as null: an empty Mono is stored like a null value, and replayed
	// as an empty Mono.
	private static @Nullable CompletionStage<?> subscribe(@Nullable Object mono, ContextView context) {
		return (mono != null) ? ((Mono<?>) mono).contextWrite(context).toFuture() : null;
	}

}
