package dev.idempotency.amqp;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * Runs an advice of the container's own chain with an invocation whose every
 * {@code proceed()} runs the rest of the chain, {@link FailureCapturingInterceptor}
 * included. Spring AMQP's retry interceptors call {@code proceed()} once per attempt, and
 * a second {@code proceed()} of the same invocation calls the listener directly, past the
 * advice after it: a retry that met another attempt in progress would then be retried,
 * and recovered (dead-lettered) once the retries were used up.
 */
final class RepeatableProceedInterceptor implements MethodInterceptor {

	private final MethodInterceptor delegate;

	RepeatableProceedInterceptor(MethodInterceptor delegate) {
		this.delegate = delegate;
	}

	MethodInterceptor delegate() {
		return this.delegate;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		if (invocation instanceof ProxyMethodInvocation proxyInvocation) {
			return this.delegate.invoke(new Repeatable(proxyInvocation));
		}
		return this.delegate.invoke(invocation);
	}

	private record Repeatable(ProxyMethodInvocation source) implements MethodInvocation {

		@Override
		public @Nullable Object proceed() throws Throwable {
			// A clone made before the source proceeds runs the chain from here, once
			return this.source.invocableClone().proceed();
		}

		@Override
		public Method getMethod() {
			return this.source.getMethod();
		}

		@Override
		public @Nullable Object[] getArguments() {
			return this.source.getArguments();
		}

		@Override
		public @Nullable Object getThis() {
			return this.source.getThis();
		}

		@Override
		public AccessibleObject getStaticPart() {
			return this.source.getStaticPart();
		}

	}

}
