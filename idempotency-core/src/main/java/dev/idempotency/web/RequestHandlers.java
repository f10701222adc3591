package dev.idempotency.web;

import java.lang.reflect.Method;

import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotatedMethod;
import org.springframework.stereotype.Controller;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;

/**
 * Tells request handler methods from other methods, for the operations whose key and
 * payload come from the request.
 */
public final class RequestHandlers {

	private static final boolean WEB_PRESENT = ClassUtils
		.isPresent("org.springframework.web.bind.annotation.RequestMapping", RequestHandlers.class.getClassLoader());

	private RequestHandlers() {
	}

	/**
	 * Return whether a method is a request handler: a {@code @RequestMapping}-family
	 * method ({@code @GetMapping}, {@code @PostMapping}, ...) of a {@code @Controller}
	 * (such as a {@code @RestController}). Always {@code false} without Spring Web on the
	 * classpath.
	 * @param method the method
	 * @param targetClass the class of the bean it is called on
	 * @return whether it handles requests
	 */
	public static boolean isHandler(Method method, Class<?> targetClass) {
		return WEB_PRESENT && AnnotatedElementUtils.hasAnnotation(targetClass, Controller.class)
				&& AnnotatedElementUtils.findMergedAnnotation(method, RequestMapping.class) != null;
	}

	/**
	 * Return whether the request body parameter of a handler arrives only after the call,
	 * as a {@code Mono}, a {@code Flux} or another type that Spring's
	 * {@link ReactiveAdapterRegistry} adapts, so that it cannot be fingerprinted.
	 * @param method the handler method
	 * @param index the position of its {@code @RequestBody} parameter
	 * @return whether the body is deferred
	 */
	public static boolean isDeferredBody(Method method, int index) {
		return ReactiveAdapterRegistry.getSharedInstance().getAdapter(method.getParameterTypes()[index]) != null;
	}

	/**
	 * Return the position of the {@code @RequestBody} parameter of a request handler,
	 * annotated on the method or on a method it implements or overrides, as Spring reads
	 * it.
	 * @param method the handler method
	 * @return the position, or -1 when it has none
	 */
	public static int requestBodyIndex(Method method) {
		// Spring finds parameter annotations on the interfaces and superclasses of a
		// handler too, as on an implementation of a generated API interface, which
		// declares the body there only
		MethodParameter[] parameters = new AnnotatedMethod(method).getMethodParameters();
		for (int i = 0; i < parameters.length; i++) {
			if (parameters[i].hasParameterAnnotation(RequestBody.class)) {
				return i;
			}
		}
		return -1;
	}

}
