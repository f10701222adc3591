package dev.idempotency.kafka;

import java.lang.reflect.Method;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.RootClassFilter;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.kafka.config.KafkaListenerContainerFactory;
import org.springframework.kafka.config.KafkaListenerEndpoint;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * Advises the {@code createListenerContainer} method of a listener container factory so
 * that each container it creates for an endpoint whose asynchronous methods are all
 * awaited ({@link AwaitedEndpoints}) takes its listener as synchronous
 * ({@link AwaitedListeners}), before the container starts.
 */
final class SynchronousContainersAdvisor extends DefaultPointcutAdvisor {

	private static final long serialVersionUID = 1L;

	SynchronousContainersAdvisor() {
		super(new CreateListenerContainer(), new SynchronousContainers());
	}

	/**
	 * {@link KafkaListenerContainerFactory#createListenerContainer(KafkaListenerEndpoint)}
	 * of any factory.
	 */
	private static final class CreateListenerContainer extends StaticMethodMatcherPointcut {

		CreateListenerContainer() {
			setClassFilter(new RootClassFilter(KafkaListenerContainerFactory.class));
		}

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return method.getName().equals("createListenerContainer") && method.getParameterCount() == 1
					&& KafkaListenerEndpoint.class.isAssignableFrom(method.getParameterTypes()[0]);
		}

	}

	private static final class SynchronousContainers implements MethodInterceptor {

		@Override
		public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
			Object container = invocation.proceed();
			if (container instanceof MessageListenerContainer created
					&& AwaitedEndpoints.awaited((KafkaListenerEndpoint) invocation.getArguments()[0])) {
				AwaitedListeners.install(created);
			}
			return container;
		}

	}

}
