package dev.idempotency.aop;

import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.expression.BeanResolver;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * Evaluation context of one call: arguments are looked up by name, {@code p<n>} or
 * {@code a<n>} through an index map built once per method, instead of binding every name
 * as a variable on every call.
 */
final class CallEvaluationContext extends StandardEvaluationContext {

	private final Map<String, Integer> argumentIndexes;

	private final Object[] args;

	CallEvaluationContext(KeyRoot root, Map<String, Integer> argumentIndexes, @Nullable BeanResolver beanResolver) {
		super(root);
		this.argumentIndexes = argumentIndexes;
		this.args = root.getArgs();
		if (beanResolver != null) {
			setBeanResolver(beanResolver);
		}
	}

	@Override
	public @Nullable Object lookupVariable(String name) {
		Integer index = this.argumentIndexes.get(name);
		return (index != null) ? this.args[index] : super.lookupVariable(name);
	}

}
