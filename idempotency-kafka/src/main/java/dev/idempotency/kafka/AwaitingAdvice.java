package dev.idempotency.kafka;

import java.lang.reflect.Method;
import java.util.Arrays;

import org.springframework.aop.Advisor;
import org.springframework.aop.IntroductionAdvisor;
import org.springframework.aop.Pointcut;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Tells whether a method's calls through a proxy meet the wait of the
 * {@link KafkaAsyncListenerAdvisor} before any other advice.
 */
final class AwaitingAdvice {

	private static final AsyncListenerPointcut pointcut = new AsyncListenerPointcut();

	private AwaitingAdvice() {
	}

	// The advisor's wait must be the first advice the method's calls meet: one before it
	// (@Async, which puts its advisor before the existing ones) may hand the container a
	// result before the advisor sees it, and the advisor waits only on the consumer
	// thread. And the proxy must intercept the method at all
	static boolean awaits(Advised advised, Method method, Class<?> target) {
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

}
