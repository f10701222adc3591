package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

import dev.idempotency.Idempotent;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds whether a class carries {@code @Idempotent} anywhere that
 * {@link IdempotentOperationSource} looks for it: on the class or a type it inherits from
 * (for its public methods), or on a method the class declares or inherits, from a
 * superclass or an interface; directly or as a meta-annotation. The pointcut asks about
 * the methods of such a class one by one, and never about those of any other class.
 */
final class IdempotentTypes {

	private IdempotentTypes() {
	}

	/**
	 * Return whether a class may have idempotent methods.
	 * @param userClass the user class of a bean
	 * @return whether it or a type it inherits from carries the annotation on itself or
	 * on a method
	 */
	static boolean mayHaveOperations(Class<?> userClass) {
		if (!AnnotationUtils.isCandidateClass(userClass, Idempotent.class)) {
			return false;
		}
		if (AnnotatedElementUtils.hasAnnotation(userClass, Idempotent.class)) {
			return true;
		}
		// JDK classes cannot carry the annotation, and neither can their superclasses.
		for (Class<?> type = userClass; type != null
				&& AnnotationUtils.isCandidateClass(type, Idempotent.class); type = type.getSuperclass()) {
			if (anyAnnotated(ReflectionUtils.getDeclaredMethods(type))) {
				return true;
			}
		}
		for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(userClass)) {
			// getMethods(): an interface's methods include those of its superinterfaces.
			if (AnnotationUtils.isCandidateClass(type, Idempotent.class) && anyAnnotated(type.getMethods())) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Return the methods of a class that the pointcut may ask about: those it declares
	 * and inherits, and the default methods of its interfaces.
	 * @param userClass the user class of a bean
	 * @return the methods, each signature once
	 */
	static Set<Method> candidateMethods(Class<?> userClass) {
		Set<Method> methods = new LinkedHashSet<>(Arrays
			.asList(ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS)));
		for (Method method : userClass.getMethods()) {
			if (method.isDefault()) {
				methods.add(method);
			}
		}
		return methods;
	}

	private static boolean anyAnnotated(Method[] methods) {
		for (Method method : methods) {
			if (AnnotatedElementUtils.isAnnotated(method, Idempotent.class)) {
				return true;
			}
		}
		return false;
	}

}
