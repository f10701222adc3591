package dev.idempotency.web;

import java.lang.reflect.Method;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.aop.RequestHandlerMethods;
import org.springframework.core.ResolvableType;

/**
 * The request handler methods of Spring MVC and WebFlux, as {@link RequestHandlers} tells
 * them, for an {@link IdempotentOperationSource} that lets them take their key and
 * payload from the request.
 */
public final class SpringWebHandlerMethods implements RequestHandlerMethods {

	/**
	 * The shared instance; it holds no state.
	 */
	public static final SpringWebHandlerMethods INSTANCE = new SpringWebHandlerMethods();

	private SpringWebHandlerMethods() {
	}

	@Override
	public boolean isHandler(Method method, Class<?> targetClass) {
		return RequestHandlers.isHandler(method, targetClass);
	}

	@Override
	public Set<String> mappedMethods(Method method, Class<?> targetClass) {
		return RequestHandlers.mappedMethods(method, targetClass);
	}

	@Override
	public @Nullable Class<?> streamingType(ResolvableType returnType) {
		return RequestHandlers.streamingType(returnType);
	}

	@Override
	public int requestBodyIndex(Method method) {
		return RequestHandlers.requestBodyIndex(method);
	}

	@Override
	public boolean isDeferredBody(Method method, int index) {
		return RequestHandlers.isDeferredBody(method, index);
	}

}
