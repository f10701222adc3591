package dev.idempotency.amqp;

import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;

import org.aopalliance.aop.Advice;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.rabbit.batch.BatchingStrategy;
import org.springframework.amqp.rabbit.config.BaseRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.MethodRabbitListenerEndpoint;
import org.springframework.amqp.rabbit.listener.MultiMethodRabbitListenerEndpoint;
import org.springframework.amqp.rabbit.listener.adapter.BatchMessagingMessageListenerAdapter;
import org.springframework.amqp.rabbit.listener.adapter.MessagingMessageListenerAdapter;
import org.springframework.amqp.rabbit.listener.api.RabbitListenerErrorHandler;
import org.springframework.util.ClassUtils;

/**
 * Advises a listener container factory's {@code createListenerContainer}:
 * <ul>
 * <li>the endpoint of a {@code @RabbitListener} method that returns a
 * {@code CompletionStage} or a {@code Mono} gets an adapter whose failed results follow
 * this library's rules (see {@link AsyncFailures}), since Spring AMQP settles those past
 * the container's advice chain; other endpoints, and a class-level
 * {@code @RabbitListener}'s, are left as they are;</li>
 * <li>the container created gets the factory's advice chain with an outermost advice of
 * its own, which knows the container's acknowledge mode, and so can requeue a message to
 * the tail of its queue (see {@link TailRequeue}), and so does the adapter of an
 * asynchronous listener.</li>
 * </ul>
 */
final class ContainerCreationInterceptor implements MethodInterceptor {

	private static final @Nullable Class<?> MONO = mono();

	private final MethodRabbitListenerEndpoint.AdapterProvider adapters;

	private final BiFunction<Advice[], AbstractMessageListenerContainer, Advice @Nullable []> chains;

	private final CopyPublisher.Shared publishers;

	private final DecisionLog log;

	ContainerCreationInterceptor(AsyncFailures failures,
			BiFunction<Advice[], AbstractMessageListenerContainer, Advice @Nullable []> chains,
			CopyPublisher.Shared publishers, DecisionLog log) {
		this.adapters = new Adapters(failures);
		this.chains = chains;
		this.publishers = publishers;
		this.log = log;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		@Nullable Object[] arguments = invocation.getArguments();
		if (arguments.length == 1 && arguments[0] instanceof MethodRabbitListenerEndpoint endpoint
				&& !(endpoint instanceof MultiMethodRabbitListenerEndpoint) && isAsync(endpoint.getMethod())) {
			endpoint.setAdapterProvider(this.adapters);
		}
		Object container = invocation.proceed();
		if (container instanceof AbstractMessageListenerContainer listenerContainer
				&& invocation.getThis() instanceof BaseRabbitListenerContainerFactory<?> factory) {
			Advice[] chain = factory.getAdviceChain();
			Advice[] configured = (chain != null) ? this.chains.apply(chain, listenerContainer) : null;
			if (configured != null) {
				listenerContainer.setAdviceChain(configured);
			}
			if (listenerContainer.getMessageListener() instanceof AsyncDecidingListenerAdapter adapter) {
				adapter.requeueToTail(new TailRequeue(listenerContainer, this.publishers, this.log));
			}
		}
		return container;
	}

	static boolean isAsync(@Nullable Method method) {
		if (method == null) {
			return false;
		}
		Class<?> type = method.getReturnType();
		return CompletionStage.class.isAssignableFrom(type) || (MONO != null && MONO.isAssignableFrom(type));
	}

	private static @Nullable Class<?> mono() {
		ClassLoader classLoader = ContainerCreationInterceptor.class.getClassLoader();
		String name = "reactor.core.publisher.Mono";
		return ClassUtils.isPresent(name, classLoader) ? ClassUtils.resolveClassName(name, classLoader) : null;
	}

	// Spring AMQP's default provider, but for the adapter of a listener of single
	// messages
	private record Adapters(AsyncFailures failures) implements MethodRabbitListenerEndpoint.AdapterProvider {

		@Override
		public MessagingMessageListenerAdapter getAdapter(boolean batch, @Nullable Object bean, @Nullable Method method,
				boolean returnExceptions, @Nullable RabbitListenerErrorHandler errorHandler,
				@Nullable BatchingStrategy batchingStrategy) {
			if (batch) {
				return new BatchMessagingMessageListenerAdapter(bean, method, returnExceptions, errorHandler,
						batchingStrategy);
			}
			return new AsyncDecidingListenerAdapter(bean, method, returnExceptions, errorHandler, this.failures);
		}

	}

}
