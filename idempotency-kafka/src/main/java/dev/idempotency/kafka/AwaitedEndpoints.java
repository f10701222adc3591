package dev.idempotency.kafka;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.kafka.config.KafkaListenerEndpoint;
import org.springframework.kafka.config.MethodKafkaListenerEndpoint;
import org.springframework.kafka.config.MultiMethodKafkaListenerEndpoint;

/**
 * Tells whether the {@link KafkaAsyncListenerAdvisor} awaits the result of every
 * asynchronous method of a listener endpoint: only then may its container take the
 * listener as synchronous ({@link AwaitedListeners}). A method it does not await (on a
 * bean it has not advised, one registered without {@code @KafkaListener}) would be
 * committed before its result completes, so such an endpoint keeps spring-kafka's
 * out-of-order commits. So does one whose calls meet another advice before the advisor's
 * ({@code @Async}, whose advisor goes before the others, returns a future not yet
 * complete, and the advisor then waits on a thread other than the consumer's, which it
 * does not), or that a proxy by subclass cannot intercept (a final method).
 */
final class AwaitedEndpoints {

	private AwaitedEndpoints() {
	}

	static boolean awaited(KafkaListenerEndpoint endpoint) {
		if (!(endpoint instanceof MethodKafkaListenerEndpoint<?, ?> methodEndpoint)
				|| !(methodEndpoint.getBean() instanceof Advised advised)) {
			return false;
		}
		Class<?> target = AopUtils.getTargetClass(advised);
		// spring-kafka takes a Kotlin suspending function as asynchronous too, whatever
		// it declares: the advisor never awaits it
		return methods(methodEndpoint).stream()
			.filter((method) -> AsyncListenerPointcut.isAsync(method.getReturnType())
					|| KotlinDetector.isSuspendingFunction(method))
			.allMatch((method) -> AwaitingAdvice.awaits(advised, method, target));
	}

	private static List<Method> methods(MethodKafkaListenerEndpoint<?, ?> endpoint) {
		List<Method> methods = new ArrayList<>();
		if (endpoint instanceof MultiMethodKafkaListenerEndpoint<?, ?> multi) {
			methods.addAll(multi.getMethods());
			if (multi.getDefaultMethod() != null) {
				methods.add(multi.getDefaultMethod());
			}
		}
		else if (endpoint.getMethod() != null) {
			methods.add(endpoint.getMethod());
		}
		return methods;
	}

}
