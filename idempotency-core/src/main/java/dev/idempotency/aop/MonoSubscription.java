package dev.idempotency.aop;

import java.util.concurrent.CompletionStage;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import dev.idempotency.aop.RequestBinding.Response;
import dev.idempotency.engine.AsyncInvocation;
import dev.idempotency.engine.Invocation;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * One subscription to the {@code Mono} of a call made by {@link ReactorResults}: the
 * method runs through its own clone of the invocation (an invocation proceeds only once),
 * and its {@code Mono} is subscribed to in the subscriber's Reactor context.
 *
 * @param invocation the method invocation, cloned when the subscription starts
 * @param response the response of the request handler being called, marked when the
 * subscription replays, or {@code null}
 * @param context the subscriber's Reactor context
 */
record MonoSubscription(MethodInvocation invocation, @Nullable Response response,
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
