package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.idempotency.engine.Operation;

import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;

/**
 * An {@code @Idempotent} method resolved once: its parsed expressions and the engine
 * operation with its effective settings and result codec.
 *
 * @param method the annotated method, most specific for the target class
 * @param targetClass the class of the bean it was resolved for
 * @param keyExpression the key expression as written, empty when the key is the request's
 * key header
 * @param payloadExpression the payload expression as written, or {@code null}
 * @param operation the engine operation
 * @param key the parsed key expression, or {@code null} when the key is the request's key
 * header
 * @param payload the parsed payload expression, or {@code null}
 * @param argumentIndexes argument positions by every name an expression may use
 * @param resultKind how the method delivers its value
 * @param requestHandler whether the method handles requests (a {@code @RequestMapping}
 * method of a controller), whose replays mark their response
 * @param requestPayload whether the payload is the whole request (method, path,
 * parameters, and the request body that {@code payload} then evaluates): a handler that
 * takes its key from the request and has no payload expression of its own
 * @param mapsSafeMethods whether the method handles requests of safe methods (GET, HEAD,
 * OPTIONS, TRACE) besides unsafe ones, and handles those without idempotency
 */
public record IdempotentOperation(Method method, Class<?> targetClass, String keyExpression,
		@Nullable String payloadExpression, Operation operation, @Nullable Expression key, @Nullable Expression payload,
		Map<String, Integer> argumentIndexes, ResultKind resultKind, boolean requestHandler, boolean requestPayload,
		boolean mapsSafeMethods) {

	/**
	 * Return the operation name.
	 * @return the name
	 */
	public String name() {
		return this.operation.name();
	}

	EvaluationContext evaluationContext(Object target, Object[] args, @Nullable BeanResolver beanResolver) {
		return new CallEvaluationContext(new KeyRoot(this.method, target, args), this.argumentIndexes, beanResolver);
	}

	/**
	 * How an idempotent method delivers its value, which decides when its record
	 * completes.
	 */
	public enum ResultKind {

		/**
		 * Returned by the method, or {@code void}: the record completes when it returns.
		 */
		VALUE,

		/**
		 * A {@code CompletionStage} or {@code CompletableFuture}: the record completes
		 * when the stage does.
		 */
		STAGE,

		/**
		 * A Reactor {@code Mono}: each subscription is one call, whose record completes
		 * when the {@code Mono} emits or completes empty.
		 */
		MONO

	}

}
