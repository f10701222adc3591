package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.core.ResolvableType;

/**
 * What the operation source needs to know of request handler methods, whose key and
 * payload may come from the HTTP request: supplied by {@code idempotency-web}, which
 * reads Spring Web's annotations. Without it, no method is a request handler.
 *
 * @see IdempotentOperationSource#IdempotentOperationSource(dev.idempotency.engine.IdempotencyDefaults,
 * dev.idempotency.codec.ResultCodec, org.springframework.util.StringValueResolver,
 * RequestHandlerMethods)
 */
public interface RequestHandlerMethods {

	/**
	 * Knows no request handlers: every method is an ordinary one.
	 */
	RequestHandlerMethods NONE = new RequestHandlerMethods() {

		@Override
		public boolean isHandler(Method method, Class<?> targetClass) {
			return false;
		}

		@Override
		public Set<String> mappedMethods(Method method, Class<?> targetClass) {
			return Set.of();
		}

		@Override
		public @Nullable Class<?> streamingType(ResolvableType returnType) {
			return null;
		}

		@Override
		public int requestBodyIndex(Method method) {
			return -1;
		}

		@Override
		public boolean isDeferredBody(Method method, int index) {
			return false;
		}

	};

	/**
	 * Return whether a method handles HTTP requests.
	 * @param method the method
	 * @param targetClass the class of the bean it is called on
	 * @return whether it handles requests
	 */
	boolean isHandler(Method method, Class<?> targetClass);

	/**
	 * Return the request methods (such as {@code POST}) a request handler is mapped to.
	 * @param method the handler method
	 * @param targetClass the class of the bean it is called on
	 * @return the names of the methods, every one when the mapping names none
	 */
	Set<String> mappedMethods(Method method, Class<?> targetClass);

	/**
	 * Return the streaming type that a request handler's response is, which cannot be
	 * stored when the call returns and replayed.
	 * @param returnType the handler's return type
	 * @return the streaming type, or {@code null} when the response can be stored
	 */
	@Nullable Class<?> streamingType(ResolvableType returnType);

	/**
	 * Return the position of the request body parameter of a request handler.
	 * @param method the handler method
	 * @return the position, or -1 when it has none
	 */
	int requestBodyIndex(Method method);

	/**
	 * Return whether the request body parameter of a handler arrives only after the call
	 * (a {@code Mono}, for one), so that it cannot be fingerprinted.
	 * @param method the handler method
	 * @param index the position of its request body parameter
	 * @return whether the body is deferred
	 */
	boolean isDeferredBody(Method method, int index);

	/**
	 * Return whether a request method is safe (RFC 9110 section 9.2.1): GET, HEAD,
	 * OPTIONS or TRACE, whose requests need no idempotency key.
	 * @param method the name of the request method
	 * @return whether it is safe
	 */
	static boolean isSafe(String method) {
		return switch (method) {
			case "GET", "HEAD", "OPTIONS", "TRACE" -> true;
			default -> false;
		};
	}

}
