package dev.idempotency.web;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.stream.BaseStream;

import org.jspecify.annotations.Nullable;

import dev.idempotency.Idempotent;
import dev.idempotency.aop.RequestHandlerMethods;

import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotatedMethod;
import org.springframework.http.HttpEntity;
import org.springframework.stereotype.Controller;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;

/**
 * Tells request handler methods from other methods, for the operations whose key and
 * payload come from the request.
 */
public final class RequestHandlers {

	private static final boolean WEB_PRESENT = ClassUtils
		.isPresent("org.springframework.web.bind.annotation.RequestMapping", RequestHandlers.class.getClassLoader());

	// Written to the response while it streams, or a file the framework copies out:
	// nothing that could be stored when the call returns. A WebFlux ServerSentEvent is
	// written as a text/event-stream even when a Mono holds it alone.
	private static final String[] STREAMING_TYPES = {
			"org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter",
			"org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody",
			"org.springframework.http.codec.ServerSentEvent", "org.springframework.core.io.Resource",
			"org.reactivestreams.Publisher", "java.util.concurrent.Flow$Publisher", "kotlinx.coroutines.flow.Flow" };

	private static final List<Class<?>> STREAMING_CLASSES = streamingClasses();

	private RequestHandlers() {
	}

	private static List<Class<?>> streamingClasses() {
		List<Class<?>> classes = new ArrayList<>();
		classes.add(BaseStream.class);
		ClassLoader classLoader = RequestHandlers.class.getClassLoader();
		for (String name : STREAMING_TYPES) {
			if (ClassUtils.isPresent(name, classLoader)) {
				classes.add(ClassUtils.resolveClassName(name, classLoader));
			}
		}
		return List.copyOf(classes);
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

	/**
	 * Return whether the fingerprint of a request handler covers the fields of a form
	 * request: whether the handler, or its class, is {@code @Idempotent} with neither a
	 * key expression (it takes its key from the request's header) nor a payload
	 * expression, and has no {@code @RequestBody} parameter (which would read the form
	 * itself).
	 * @param method the handler method
	 * @param handlerType the class of the bean it is called on
	 * @return whether its fingerprint needs the request's form
	 */
	public static boolean fingerprintsForm(Method method, Class<?> handlerType) {
		Idempotent annotation = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
		if (annotation == null) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(handlerType, Idempotent.class);
		}
		return annotation != null && !StringUtils.hasText(annotation.key())
				&& !StringUtils.hasText(annotation.payload()) && requestBodyIndex(method) < 0;
	}

	/**
	 * Return the request methods that a request handler is mapped to, those of its
	 * {@code @RequestMapping} and of its class's, as Spring combines them.
	 * @param method the handler method
	 * @param targetClass the class of the bean it is called on
	 * @return the names of the methods, every one when the mapping names none
	 */
	public static Set<String> mappedMethods(Method method, Class<?> targetClass) {
		Set<RequestMethod> methods = EnumSet.noneOf(RequestMethod.class);
		RequestMapping onType = AnnotatedElementUtils.findMergedAnnotation(targetClass, RequestMapping.class);
		if (onType != null) {
			methods.addAll(List.of(onType.method()));
		}
		RequestMapping onMethod = AnnotatedElementUtils.findMergedAnnotation(method, RequestMapping.class);
		if (onMethod != null) {
			methods.addAll(List.of(onMethod.method()));
		}
		Set<String> names = new LinkedHashSet<>();
		(methods.isEmpty() ? EnumSet.allOf(RequestMethod.class) : methods).forEach((each) -> names.add(each.name()));
		return names;
	}

	/**
	 * Return whether a request method is safe (RFC 9110 section 9.2.1): GET, HEAD,
	 * OPTIONS or TRACE, whose requests need no idempotency key.
	 * @param method the name of the request method
	 * @return whether it is safe
	 */
	public static boolean isSafe(String method) {
		return RequestHandlerMethods.isSafe(method);
	}

	/**
	 * Return the streaming type that a request handler's response is, which cannot be
	 * stored when the call returns and replayed: an {@code SseEmitter} or another
	 * {@code ResponseBodyEmitter}, a {@code StreamingResponseBody}, a WebFlux
	 * {@code ServerSentEvent}, a {@code Resource}, a {@code Flux} or another type of many
	 * values or of a value that comes later, whether returned as it is, as the body of a
	 * {@code ResponseEntity}, or in a {@code Mono} or {@code CompletionStage}.
	 * @param returnType the handler's return type
	 * @return the streaming type, or {@code null} when the response can be stored
	 */
	public static @Nullable Class<?> streamingType(ResolvableType returnType) {
		ResolvableType type = returnType;
		if (type.toClass().getName().equals("reactor.core.publisher.Mono")) {
			type = type.getGeneric(0);
		}
		else if (CompletionStage.class.isAssignableFrom(type.toClass())) {
			type = type.as(CompletionStage.class).getGeneric(0);
		}
		if (HttpEntity.class.isAssignableFrom(type.toClass())) {
			type = type.as(HttpEntity.class).getGeneric(0);
		}
		Class<?> raw = type.toClass();
		if (raw == Object.class) {
			return null;
		}
		for (Class<?> streaming : STREAMING_CLASSES) {
			if (streaming.isAssignableFrom(raw)) {
				return raw;
			}
		}
		return (ReactiveAdapterRegistry.getSharedInstance().getAdapter(raw) != null) ? raw : null;
	}

}
