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
 * is returned completed, in the method's own result type.
 */
final class AsyncListenerResultInterceptor implements MethodInterceptor {

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object result = invocation.proceed();
		// Only the container's own calls: spring-kafka binds the group to the consumer
		// thread for as long as the consumer runs
		if (result == null || KafkaUtils.getConsumerGroupId() == null) {
			return result;
		}
		if (result instanceof CompletionStage<?> stage) {
			return CompletableFuture.completedFuture(await(stage.toCompletableFuture(), invocation));
		}
		return MonoResults.completed(await(MonoResults.toFuture(result), invocation));
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
