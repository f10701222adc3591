package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.aop.IdempotentOperation.ResultKind;
import dev.idempotency.codec.PayloadFingerprinter;
import dev.idempotency.engine.AsyncInvocation;
import dev.idempotency.engine.Fingerprint;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.Invocation;
import dev.idempotency.aop.RequestBinding.BoundRequest;
import dev.idempotency.aop.RequestBinding.Response;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs {@code @Idempotent} methods through the engine: evaluates the key and payload
 * expressions of the call and hands the invocation over, synchronously or, for a method
 * that returns a {@code CompletionStage} or a {@code Mono}, as an asynchronous call.
 */
final class IdempotentInterceptor implements MethodInterceptor {

	private final IdempotentOperationSource operations;

	private final SingletonSupplier<IdempotencyEngine> engine;

	private final SingletonSupplier<PayloadFingerprinter> fingerprinter;

	private final @Nullable BeanResolver beanResolver;

	private Supplier<@Nullable RequestBinding> requestBinding = () -> null;

	// Looked up once: a bean factory lookup on every call costs the hot path microseconds
	private volatile boolean bindingResolved;

	private @Nullable RequestBinding binding;

	IdempotentInterceptor(IdempotentOperationSource operations, Supplier<IdempotencyEngine> engine,
			Supplier<PayloadFingerprinter> fingerprinter, @Nullable BeanResolver beanResolver) {
		this.operations = operations;
		this.engine = SingletonSupplier.of(engine);
		this.fingerprinter = SingletonSupplier.of(fingerprinter);
		this.beanResolver = beanResolver;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Method method = invocation.getMethod();
		IdempotentOperation operation = (target != null)
				? this.operations.getOperation(method, AopProxyUtils.ultimateTargetClass(target)) : null;
		if (operation == null || isSafeRequest(operation)) {
			return invocation.proceed();
		}
		if (operation.resultKind() != ResultKind.VALUE) {
			return invokeAsync(operation, target, invocation);
		}
		@Nullable Object key;
		@Nullable Fingerprint fingerprint = null;
		if (operation.key() instanceof ArgumentReference argument && operation.payload() == null) {
			// Nothing to evaluate: the key is one of the arguments
			key = argument.valueOf(invocation.getArguments());
		}
		else {
			EvaluationContext context = operation.evaluationContext(target, invocation.getArguments(),
					this.beanResolver);
			try {
				key = keyOf(operation, context);
			}
			catch (IdempotencyKeyException ex) {
				throw refused(operation, ex);
			}
			fingerprint = fingerprint(operation, context, key);
		}
		if (key instanceof BoundRequest request) {
			return this.engine.obtain()
				.execute(operation.operation(), request.key(), fingerprint, new RequestInvocation(invocation, request));
		}
		Response response = handlerResponse(operation);
		Invocation work = (response != null) ? new RequestInvocation(invocation, response) : invocation::proceed;
		return this.engine.obtain().execute(operation.operation(), key, fingerprint, work);
	}

	// Every failure, a key that cannot be evaluated included, reaches the caller through
	// the stage or Mono: such a method never throws.
	private Object invokeAsync(IdempotentOperation operation, Object target, MethodInvocation invocation) {
		boolean mono = operation.resultKind() == ResultKind.MONO;
		@Nullable Object key;
		Fingerprint fingerprint;
		Response response;
		try {
			EvaluationContext context = operation.evaluationContext(target, invocation.getArguments(),
					this.beanResolver);
			key = keyOf(operation, context);
			fingerprint = fingerprint(operation, context, key);
			response = (key instanceof BoundRequest request) ? request : handlerResponse(operation);
		}
		catch (IdempotencyException ex) {
			this.engine.obtain().refused(operation.operation());
			return mono ? ReactorResults.error(ex) : CompletableFuture.failedFuture(ex);
		}
		if (key instanceof BoundRequest request) {
			key = request.key();
		}
		IdempotencyEngine engine = this.engine.obtain();
		if (mono) {
			return ReactorResults.execute(engine, operation.operation(), key, fingerprint, invocation, response);
		}
		return engine.executeAsync(operation.operation(), key, fingerprint, new StageInvocation(invocation, response));
	}

	// The value of the key expression, or for a handler that takes its key from the
	// request, the request bound with its key
	private @Nullable Object keyOf(IdempotentOperation operation, EvaluationContext context) {
		Expression key = operation.key();
		return (key != null) ? evaluate(operation, "key", operation.keyExpression(), key, context)
				: bindRequest(operation);
	}

	// A key that cannot be had counts as invalid, like one the engine refuses
	private IdempotencyKeyException refused(IdempotentOperation operation, IdempotencyKeyException ex) {
		this.engine.obtain().refused(operation.operation());
		return ex;
	}

	// Computed by the engine, which counts a failure like any refused call. The request's
	// method, path and parameters are taken now, while it is bound to the thread.
	private @Nullable Fingerprint fingerprint(IdempotentOperation operation, EvaluationContext context,
			@Nullable Object key) {
		Expression payload = operation.payload();
		if (operation.requestPayload() && key instanceof BoundRequest request) {
			RequestPayload whole = request.payload();
			return () -> this.fingerprinter.obtain()
				.fingerprint((payload != null)
						? whole
							.withBody(evaluate(operation, "payload", operation.payloadExpression(), payload, context))
						: whole.withoutBody());
		}
		if (payload == null) {
			return null;
		}
		return () -> this.fingerprinter.obtain()
			.fingerprint(evaluate(operation, "payload", operation.payloadExpression(), payload, context));
	}

	// A request of a safe method (GET, HEAD, OPTIONS, TRACE) to a handler that serves
	// unsafe ones too, which it handles without idempotency
	private boolean isSafeRequest(IdempotentOperation operation) {
		if (!operation.mapsSafeMethods()) {
			return false;
		}
		RequestBinding binding = requestBinding();
		String method = (binding != null) ? binding.currentMethod() : null;
		return method != null && RequestHandlerMethods.isSafe(method);
	}

	// The response of a request handler with a key of its own, so that its replays are
	// marked too; never the response of a request that merely calls this method
	private @Nullable Response handlerResponse(IdempotentOperation operation) {
		RequestBinding binding = operation.requestHandler() ? requestBinding() : null;
		return (binding != null) ? binding.currentResponse() : null;
	}

	private @Nullable RequestBinding requestBinding() {
		if (!this.bindingResolved) {
			// Racing threads find the same bean; the volatile write publishes it
			this.binding = this.requestBinding.get();
			this.bindingResolved = true;
		}
		return this.binding;
	}

	// Resolved when the handler is called, while its request is bound to the thread, and
	// kept with the call for a replay that comes later
	private BoundRequest bindRequest(IdempotentOperation operation) {
		RequestBinding binding = requestBinding();
		if (binding == null) {
			throw new IdempotencyKeyException("Operation '" + operation.name() + "' on "
					+ IdempotentMessages.describe(operation.method()) + " takes its key from the request, but the "
					+ "application serves no Spring MVC or WebFlux requests; the method was not called");
		}
		return binding.bind(operation.name());
	}

	void setRequestBinding(Supplier<@Nullable RequestBinding> requestBinding) {
		this.requestBinding = requestBinding;
		this.bindingResolved = false;
	}

	private static @Nullable Object evaluate(IdempotentOperation operation, String attribute, @Nullable String text,
			Expression expression, EvaluationContext context) {
		try {
			return expression.getValue(context);
		}
		catch (EvaluationException ex) {
			throw new IdempotencyKeyException("Could not evaluate " + attribute + " expression '" + text
					+ "' of operation '" + operation.name() + "' on " + IdempotentMessages.describe(operation.method())
					+ "; the method was not called: " + ex.getMessage(), ex);
		}
	}

	private record RequestInvocation(MethodInvocation invocation, Response response) implements Invocation {

		@Override
		public @Nullable Object proceed() throws Throwable {
			return this.invocation.proceed();
		}

		@Override
		public void replayed() {
			this.response.replayed();
		}

	}

	private record StageInvocation(MethodInvocation invocation,
			@Nullable Response response) implements AsyncInvocation {

		@Override
		public @Nullable CompletionStage<?> start() throws Throwable {
			return (CompletionStage<?>) this.invocation.proceed();
		}

		@Override
		public void replayed() {
			if (this.response != null) {
				this.response.replayed();
			}
		}

	}

}
