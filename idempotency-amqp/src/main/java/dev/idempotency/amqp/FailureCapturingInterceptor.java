package dev.idempotency.amqp;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

/**
 * The innermost advice of a listener container: takes an exception of this library that
 * decides the fate of its message from the listener, so that no advice between it and
 * {@link FailureDecidingInterceptor} (a retry interceptor and its message recoverer, in
 * particular, which would retry a reused key and dead-letter a message in progress) acts
 * on it, and hands it over on the consumer's thread.
 */
final class FailureCapturingInterceptor implements MethodInterceptor {

	private final ThreadLocal<ListenerFailure> captured;

	FailureCapturingInterceptor(ThreadLocal<ListenerFailure> captured) {
		this.captured = captured;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		try {
			return invocation.proceed();
		}
		catch (Throwable ex) {
			ListenerFailure failure = ListenerFailure.of(ex);
			if (failure == null) {
				throw ex;
			}
			this.captured.set(failure);
			return null;
		}
	}

}
