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
import dev.idempotency.engine.Fingerprint;
import dev.idempotency.engine.IdempotencyEngine;

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
		if (operation == null) {
			return invocation.proceed();
		}
		if (operation.resultKind() != ResultKind.VALUE) {
			return invokeAsync(operation, target, invocation);
		}
		EvaluationContext context = operation.evaluationContext(target, invocation.getArguments(), this.beanResolver);
		Object key = evaluate(operation, "key", operation.keyExpression(), operation.key(), context);
		return this.engine.obtain()
			.execute(operation.operation(), key, fingerprint(operation, context), invocation::proceed);
	}

	// Every failure, a key that cannot be evaluated included, reaches the caller through
	// the stage or Mono: such a method never throws.
	private Object invokeAsync(IdempotentOperation operation, Object target, MethodInvocation invocation) {
		boolean mono = operation.resultKind() == ResultKind.MONO;
		Object key;
		Fingerprint fingerprint;
		try {
			EvaluationContext context = operation.evaluationContext(target, invocation.getArguments(),
					this.beanResolver);
			key = evaluate(operation, "key", operation.keyExpression(), operation.key(), context);
			fingerprint = fingerprint(operation, context);
		}
		catch (IdempotencyException ex) {
			return mono ? ReactorResults.error(ex) : CompletableFuture.failedFuture(ex);
		}
		IdempotencyEngine engine = this.engine.obtain();
		if (mono) {
			return ReactorResults.execute(engine, operation.operation(), key, fingerprint, invocation);
		}
		return engine.executeAsync(operation.operation(), key, fingerprint,
				() -> (CompletionStage<?>) invocation.proceed());
	}

	// Computed by the engine, which counts a failure like any refused call
	private @Nullable Fingerprint fingerprint(IdempotentOperation operation, EvaluationContext context) {
		Expression payload = operation.payload();
		if (payload == null) {
			return null;
		}
		return () -> this.fingerprinter.obtain()
			.fingerprint(evaluate(operation, "payload", operation.payloadExpression(), payload, context));
	}

	private static @Nullable Object evaluate(IdempotentOperation operation, String attribute, @Nullable String text,
			Expression expression, EvaluationContext context) {
		try {
			return expression.getValue(context);
		}
		catch (EvaluationException ex) {
			throw new IdempotencyKeyException("Could not evaluate " + attribute + " expression '" + text
					+ "' of operation '" + operation.name() + "' on " + ExpressionParsing.describe(operation.method())
					+ "; the method was not called: " + ex.getMessage(), ex);
		}
	}

}
