package dev.idempotency.aop;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.idempotency.engine.Fingerprint;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.Operation;
import dev.idempotency.aop.RequestBinding.Response;

/**
 * Runs {@code @Idempotent} methods that return a Reactor {@code Mono}. With its
 * {@link MonoSubscription}, the only class here that touches Reactor: loaded on the first
 * call of such a method, so that Reactor stays optional. Its methods take and return only
 * JDK types, so that verifying its callers needs no Reactor class either.
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
				engine.executeAsync(operation, key, fingerprint, new MonoSubscription(invocation, response, context)),
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

}
