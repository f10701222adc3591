package dev.idempotency.autoconfigure;

import dev.idempotency.aop.RequestHandlerMethods;
import dev.idempotency.codec.ResultCodec;
import dev.idempotency.web.ResponseEntityResultCodec;
import dev.idempotency.web.SpringWebHandlerMethods;
import org.springframework.util.ClassUtils;

/**
 * What the operation source takes from {@code idempotency-web} when it is on the class
 * path: the request handler methods, and the codec of their {@code ResponseEntity}
 * results. Its web types are loaded only when that module and Spring Web are present.
 */
final class RequestHandlerSupport {

	// Both: the starter brings idempotency-web to applications without Spring Web too
	private static final boolean WEB_MODULE_PRESENT = ClassUtils
		.isPresent("dev.idempotency.web.SpringWebHandlerMethods", RequestHandlerSupport.class.getClassLoader())
			&& ClassUtils.isPresent("org.springframework.web.bind.annotation.RequestMapping",
					RequestHandlerSupport.class.getClassLoader());

	private RequestHandlerSupport() {
	}

	static RequestHandlerMethods handlerMethods() {
		return WEB_MODULE_PRESENT ? Web.handlerMethods() : RequestHandlerMethods.NONE;
	}

	static ResultCodec codec(ResultCodec codec, IdempotencyHttpProperties http) {
		return WEB_MODULE_PRESENT ? Web.codec(codec, http) : codec;
	}

	private static final class Web {

		static RequestHandlerMethods handlerMethods() {
			return SpringWebHandlerMethods.INSTANCE;
		}

		static ResultCodec codec(ResultCodec codec, IdempotencyHttpProperties http) {
			return ResponseEntityResultCodec.wrap(codec, ReplayedHeaders.of(http), http.isReplayServerErrors());
		}

	}

}
