package dev.idempotency.kafka;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.support.KafkaUtils;

/**
 * Waits, on a listener container's consumer thread, for the asynchronous result of a
 * listener method (see {@link KafkaAsyncListenerAdvisor}): a failure is thrown, a value
 * is returned completed, in the method's own result type, and no result at all as an
 * empty one.
 */
final class AsyncListenerResultInterceptor implements MethodInterceptor {

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object result = invocation.proceed();
		// Only the container's own calls: spring-kafka binds the group to the consumer
		// thread for as long as the consumer runs
		if (KafkaUtils.getConsumerGroupId() == null) {
			return result;
		}
		if (result == null) {
			// spring-kafka acknowledges the record of an asynchronous listener when its
			// result completes: without one it never would, and its consumer would stay
			// paused, waiting for that acknowledgement, for good
			return completedEmpty(invocation.getMethod().getReturnType());
		}
		if (result instanceof CompletionStage<?> stage) {
			Object value = await(stage.toCompletableFuture(), invocation);
			// Completed now, and of the type the method declares, a subclass say: the
			// proxy casts to it
			return (result instanceof CompletableFuture) ? result : CompletableFuture.completedFuture(value);
		}
		return MonoResults.completed(await(MonoResults.toFuture(result), invocation));
	}

	// The pointcut matched a CompletionStage or a Mono; a subclass of either that we
	// cannot build stays without a result
	private static @Nullable Object completedEmpty(Class<?> type) {
		Object empty = CompletionStage.class.isAssignableFrom(type) ? CompletableFuture.completedFuture(null)
				: MonoResults.completed(null);
		return type.isInstance(empty) ? empty : null;
	}

	private static @Nullable Object await(CompletableFuture<?> result, MethodInvocation invocation) throws Throwable {
		try {
			return result.get();
		}
		catch (ExecutionException ex) {
			throw cause(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			// The outcome is unknown: not a value the container may acknowledge
			throw new IllegalStateException("Interrupted while waiting for the result of listener method "
					+ invocation.getMethod().getDeclaringClass().getSimpleName() + "."
					+ invocation.getMethod().getName(), ex);
		}
	}

	private static Throwable cause(ExecutionException ex) {
		Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}
