package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.core.ResolvableType;

/**
 * Checks the {@code @Idempotent} of request handler methods when their operations are
 * resolved: a handler may take its key and payload from the request, but must have a
 * response that can be stored and a request method that changes state.
 */
final class RequestHandlerChecks {

	private final RequestHandlerMethods methods;

	RequestHandlerChecks(RequestHandlerMethods methods) {
		this.methods = methods;
	}

	boolean isHandler(Method method, Class<?> userClass) {
		return this.methods.isHandler(method, userClass);
	}

	void checkRequestHandler(Method method, Class<?> userClass) {
		if (!this.methods.isHandler(method, userClass)) {
			throw new IllegalStateException("@Idempotent on " + IdempotentMessages.describe(method)
					+ " has no key: give it a key expression; only a request handler method (a @RequestMapping-family "
					+ "method of a @Controller, with idempotency-web on the class path) may omit it, to take the key "
					+ "from the request's header");
		}
	}

	// A handler whose response streams cannot be stored, and one that only serves safe
	// methods has nothing to protect (and HEAD or GET requests would store and replay
	// under keys meant for other resources). Returns whether the handler serves safe
	// methods besides unsafe ones, which then run without idempotency.
	boolean checkReplayableHandler(Method method, Class<?> userClass) {
		Class<?> streaming = this.methods.streamingType(ResolvableType.forMethodReturnType(method, userClass));
		if (streaming != null) {
			throw new IllegalStateException("@Idempotent on " + IdempotentMessages.describe(method)
					+ " cannot replay its response: it returns a streaming type (" + streaming.getName()
					+ "), whose content is written after the call returns and cannot be stored; return the "
					+ "content itself (such as a ResponseEntity of a value), or remove @Idempotent");
		}
		Set<String> methods = this.methods.mappedMethods(method, userClass);
		long safe = methods.stream().filter(RequestHandlerMethods::isSafe).count();
		if (safe == methods.size()) {
			throw new IllegalStateException("@Idempotent on " + IdempotentMessages.describe(method)
					+ " has nothing to protect: it is mapped only to safe methods " + methods
					+ ", which take no idempotency key; map it to POST, PUT, PATCH or DELETE, or remove @Idempotent");
		}
		return safe > 0;
	}

	boolean servesOnlySafeMethods(Method method, Class<?> userClass) {
		return this.methods.isHandler(method, userClass)
				&& this.methods.mappedMethods(method, userClass).stream().allMatch(RequestHandlerMethods::isSafe);
	}

	// A handler's payload is its request body, as positional SpEL so that it needs no
	// parameter names. A body that arrives after the call (a Mono) cannot be; a handler
	// with a key of its own then goes without, as before it had a default payload.
	@Nullable String requestBody(Method method, boolean keyFromRequest) {
		int index = this.methods.requestBodyIndex(method);
		if (index < 0) {
			return null;
		}
		if (this.methods.isDeferredBody(method, index)) {
			if (keyFromRequest) {
				throw new IllegalStateException("@Idempotent on " + IdempotentMessages.describe(method)
						+ " would fingerprint its @RequestBody, but that is a "
						+ method.getParameterTypes()[index].getSimpleName()
						+ " whose value arrives only after the call: declare the body's own type, "
						+ "or give the annotation a payload expression");
			}
			return null;
		}
		return "#p" + index;
	}

}
