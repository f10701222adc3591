package dev.idempotency.kafka;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.kafka.config.KafkaListenerEndpoint;
import org.springframework.kafka.config.MethodKafkaListenerEndpoint;
import org.springframework.kafka.config.MultiMethodKafkaListenerEndpoint;

/**
 * Tells whether the {@link KafkaAsyncListenerAdvisor} awaits the result of every
 * asynchronous method of a listener endpoint: only then may its container take the
 * listener as synchronous ({@link AwaitedListeners}). A method it does not await (on a
 * bean it has not advised, one registered without {@code @KafkaListener}) would be
 * committed before its result completes, so such an endpoint keeps spring-kafka's
 * out-of-order commits.
 */
final class AwaitedEndpoints {

	private static final AsyncListenerPointcut pointcut = new AsyncListenerPointcut();

	private AwaitedEndpoints() {
	}

	static boolean awaited(KafkaListenerEndpoint endpoint) {
		if (!(endpoint instanceof MethodKafkaListenerEndpoint<?, ?> methodEndpoint)
				|| !(methodEndpoint.getBean() instanceof Advised advised)
				|| Arrays.stream(advised.getAdvisors()).noneMatch(KafkaAsyncListenerAdvisor.class::isInstance)) {
			return false;
		}
		Class<?> target = AopUtils.getTargetClass(advised);
		return methods(methodEndpoint).stream()
			.filter((method) -> AsyncListenerPointcut.isAsync(method.getReturnType()))
			.allMatch((method) -> pointcut.matches(method, target));
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
