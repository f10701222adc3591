package dev.idempotency.kafka;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.springframework.aop.Advisor;
import org.springframework.aop.IntroductionAdvisor;
import org.springframework.aop.Pointcut;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.kafka.config.KafkaListenerEndpoint;
import org.springframework.kafka.config.MethodKafkaListenerEndpoint;
import org.springframework.kafka.config.MultiMethodKafkaListenerEndpoint;
import org.springframework.util.ReflectionUtils;

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

	private static final AsyncListenerPointcut pointcut = new AsyncListenerPointcut();

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
			.allMatch((method) -> awaits(advised, method, target));
	}

	// The advisor's wait must be the first advice the method's calls meet: one before it
	// (@Async, which puts its advisor before the existing ones) may hand the container a
	// result before the advisor sees it, and the advisor waits only on the consumer
	// thread. And the proxy must intercept the method at all
	private static boolean awaits(Advised advised, Method method, Class<?> target) {
		if (!intercepted(advised, method)) {
			return false;
		}
		for (Advisor advisor : advised.getAdvisors()) {
			if (advisor instanceof KafkaAsyncListenerAdvisor) {
				return pointcut.matches(method, target);
			}
			if (!(advisor.getAdvice() instanceof ExposeInvocationInterceptor) && applies(advisor, method, target)) {
				return false;
			}
		}
		return false;
	}

	// A proxy by subclass does not override a final method, whose calls then never reach
	// the advice
	private static boolean intercepted(Advised advised, Method method) {
		if (!AopUtils.isCglibProxy(advised)) {
			return true;
		}
		Method called = ReflectionUtils.findMethod(advised.getClass(), method.getName(), method.getParameterTypes());
		return called != null && called.getDeclaringClass() == advised.getClass();
	}

	// Any advisor we cannot tell about is taken to apply
	private static boolean applies(Advisor advisor, Method method, Class<?> target) {
		if (advisor instanceof PointcutAdvisor pointcutAdvisor) {
			Pointcut advisorPointcut = pointcutAdvisor.getPointcut();
			return advisorPointcut.getClassFilter().matches(target)
					&& advisorPointcut.getMethodMatcher().matches(method, target);
		}
		if (advisor instanceof IntroductionAdvisor introduction) {
			return Arrays.stream(introduction.getInterfaces())
				.anyMatch((type) -> type.isAssignableFrom(method.getDeclaringClass()));
		}
		return true;
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
