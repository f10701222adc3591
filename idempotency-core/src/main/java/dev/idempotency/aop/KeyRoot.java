package dev.idempotency.aop;

import java.lang.reflect.Method;

/**
 * Root object of key and payload expressions: {@code #root.method}, {@code #root.target},
 * {@code #root.args}.
 */
public final class KeyRoot {

	private final Method method;

	private final Object target;

	private final Object[] args;

	KeyRoot(Method method, Object target, Object[] args) {
		this.method = method;
		this.target = target;
		this.args = args;
	}

	/**
	 * Return the method being called.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * Return the name of the method being called.
	 * @return the method name
	 */
	public String getMethodName() {
		return this.method.getName();
	}

	/**
	 * Return the target object of the call.
	 * @return the target
	 */
	public Object getTarget() {
		return this.target;
	}

	/**
	 * Return the arguments of the call.
	 * @return the arguments
	 */
	public Object[] getArgs() {
		return this.args;
	}

}
