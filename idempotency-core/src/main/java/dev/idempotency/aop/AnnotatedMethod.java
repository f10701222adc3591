package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;

import org.jspecify.annotations.Nullable;

import dev.idempotency.Idempotent;
import dev.idempotency.engine.Operation;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * The {@code @Idempotent} that applies to a method called on a target class, and the name
 * of the operation it declares.
 *
 * @param method the most specific method, the one the operation describes
 * @param userClass the class whose operation it is
 * @param annotation the annotation, of the method or else of its type
 * @param onType whether the annotation is the type's
 */
record AnnotatedMethod(Method method, Class<?> userClass, Idempotent annotation, boolean onType) {

	/**
	 * Find the annotation that applies to a method: the method's own, else, for a public
	 * method, its type's. A JDK proxy or a lambda is described by the interface method,
	 * since its generated class, numbered in creation order, has no parameter names.
	 * @param method the method, possibly from an interface
	 * @param targetClass the class of the target bean, or {@code null}
	 * @return the annotated method, or {@code null} if no annotation applies or the
	 * method is static
	 * @throws IllegalStateException if the method is a method of {@link Object} and
	 * annotated itself
	 */
	static @Nullable AnnotatedMethod find(Method method, @Nullable Class<?> targetClass) {
		Class<?> userClass = (targetClass != null) ? ClassUtils.getUserClass(targetClass) : method.getDeclaringClass();
		Method declared = method;
		if (Proxy.isProxyClass(userClass) || ClassUtils.isLambdaClass(userClass)) {
			// A generated class, numbered in creation order, whose methods have no
			// parameter names: the interface names the operation and its arguments. The
			// pointcut asks about a lambda's own methods too.
			declared = ClassUtils.getInterfaceMethodIfPossible(method, null);
			userClass = declared.getDeclaringClass();
		}
		Method specific = AopUtils.getMostSpecificMethod(declared, userClass);
		if (Modifier.isStatic(specific.getModifiers())) {
			return null;
		}
		Idempotent annotation = findMethodAnnotation(specific, method);
		boolean objectMethod = ObjectMethods.isObjectMethod(specific);
		if (annotation != null && objectMethod) {
			throw ObjectMethods.annotated(specific);
		}
		boolean onType = false;
		if (annotation == null && !objectMethod && Modifier.isPublic(specific.getModifiers())) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(userClass, Idempotent.class);
			onType = true;
		}
		return (annotation != null) ? new AnnotatedMethod(specific, userClass, annotation, onType) : null;
	}

	private static @Nullable Idempotent findMethodAnnotation(Method specific, Method method) {
		Idempotent annotation = AnnotatedElementUtils.findMergedAnnotation(specific, Idempotent.class);
		if (annotation == null && specific != method) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
		}
		return annotation;
	}

	/**
	 * Return the name of the operation: the annotation's, followed by the method's name
	 * when the type carries it (its methods share it), else the class's simple name and
	 * the method's.
	 * @return the name
	 * @throws IllegalStateException if the name is not a valid operation name
	 */
	String operationName() {
		String name;
		if (!StringUtils.hasText(this.annotation.name())) {
			name = this.userClass.getSimpleName() + "." + this.method.getName();
		}
		else {
			name = this.onType ? this.annotation.name() + "." + this.method.getName() : this.annotation.name();
		}
		try {
			Operation.checkName(name);
		}
		catch (IllegalArgumentException ex) {
			if (StringUtils.hasText(this.annotation.name())) {
				throw IdempotentMessages.invalid("name", this.annotation.name(), this.method, ex.getMessage());
			}
			throw new IllegalStateException("Invalid @Idempotent on " + IdempotentMessages.describe(this.method)
					+ ": its default name is not valid, so give it a name: " + ex.getMessage());
		}
		return name;
	}

}
