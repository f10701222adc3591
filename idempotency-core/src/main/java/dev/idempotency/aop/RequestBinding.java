package dev.idempotency.aop;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyKeyException;

/**
 * Finds the HTTP request an idempotent request handler is called for, on the thread that
 * calls it: the source of the key of a handler whose {@code @Idempotent} has no key
 * expression, and the response to mark when the call replays. One implementation per web
 * stack (Spring MVC, WebFlux).
 */
public interface RequestBinding {

	/**
	 * Bind the request being handled on the current thread.
	 * @param operation the name of the operation being called, for error messages
	 * @return the request, with its key resolved
	 * @throws IdempotencyKeyException if there is no current request, or its key header
	 * is missing, blank or not valid; the message says which
	 */
	BoundRequest bind(String operation);

	/**
	 * Return the response of the request being handled on the current thread, for a
	 * request handler with a key expression of its own, whose replays are marked too.
	 * @return the response, or {@code null} when no request is bound to the thread
	 */
	@Nullable Response currentResponse();

	/**
	 * Return the method of the request being handled on the current thread, by which a
	 * handler mapped to safe and unsafe methods tells a safe request, which it handles
	 * without idempotency.
	 * @return the method (such as {@code GET}), or {@code null} when no request is bound
	 * to the thread
	 */
	default @Nullable String currentMethod() {
		return null;
	}

	/**
	 * The response to a request, kept for the whole call, even when the call replays
	 * later on another thread.
	 */
	interface Response {

		/**
		 * Mark the response as a replay of an earlier one: set the
		 * {@code Idempotent-Replayed} header to {@code true}.
		 */
		void replayed();

	}

	/**
	 * A request, resolved when its handler is called and kept for the whole call.
	 */
	interface BoundRequest extends Response {

		/**
		 * Return the idempotency key of the request, in the scope of its caller.
		 * @return the key as the operation stores it
		 */
		String key();

		/**
		 * Return the method, path and parameters of the request, which a handler without
		 * a payload expression fingerprints with its body.
		 * @return the request's payload
		 */
		RequestPayload payload();

	}

}
