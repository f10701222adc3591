package dev.idempotency.aop;

import java.lang.reflect.Method;

import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Matches the methods that {@link IdempotentOperationSource} resolves an operation for,
 * on the classes it says may have one.
 */
final class IdempotentPointcut extends StaticMethodMatcherPointcut {

	private final IdempotentOperationSource operations;

	IdempotentPointcut(IdempotentOperationSource operations) {
		this.operations = operations;
		setClassFilter((type) -> this.operations.isCandidateClass(type));
	}

	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		return this.operations.getOperation(method, targetClass) != null;
	}

}
