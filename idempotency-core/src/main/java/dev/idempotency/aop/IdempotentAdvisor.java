package dev.idempotency.aop;

import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;

import dev.idempotency.codec.PayloadFingerprinter;
import dev.idempotency.engine.IdempotencyEngine;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.expression.BeanResolver;
import org.springframework.util.Assert;

/**
 * Advisor that makes {@code @Idempotent} methods idempotent. Its order decides whether it
 * runs outside or inside other advice such as {@code @Transactional}: outside (a lower
 * order value), the record completes only after the transaction commits.
 */
public class IdempotentAdvisor extends AbstractPointcutAdvisor {

	private final transient IdempotentInterceptor interceptor;

	private final transient Pointcut pointcut;

	/**
	 * Create an advisor.
	 * @param operations the source of operation metadata
	 * @param engine the engine that runs the calls, looked up on the first call so that
	 * the store is not created while proxies are
	 * @param fingerprinter the fingerprinter of payloads, looked up on the first call
	 * @param beanResolver resolver of {@code @bean} references in expressions, or
	 * {@code null}
	 */
	public IdempotentAdvisor(IdempotentOperationSource operations, Supplier<IdempotencyEngine> engine,
			Supplier<PayloadFingerprinter> fingerprinter, @Nullable BeanResolver beanResolver) {
		this.pointcut = new IdempotentPointcut(operations);
		this.interceptor = new IdempotentInterceptor(operations, engine, fingerprinter, beanResolver);
	}

	/**
	 * Set where operations whose key is omitted find the request being handled: the
	 * binding of the application's web stack, looked up on each such call.
	 * @param requestBinding supplier of the binding, or of {@code null} when the
	 * application serves no requests
	 */
	public void setRequestBinding(Supplier<@Nullable RequestBinding> requestBinding) {
		Assert.notNull(requestBinding, "'requestBinding' must not be null");
		this.interceptor.setRequestBinding(requestBinding);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
