package dev.idempotency.amqp;

import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;

import org.aopalliance.aop.Advice;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.listener.adapter.HandlerAdapter;
import org.springframework.amqp.rabbit.batch.BatchingStrategy;
import org.springframework.amqp.rabbit.config.BaseRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.MethodRabbitListenerEndpoint;
import org.springframework.amqp.rabbit.listener.MultiMethodRabbitListenerEndpoint;
import org.springframework.amqp.rabbit.listener.adapter.BatchMessagingMessageListenerAdapter;
import org.springframework.amqp.rabbit.listener.adapter.MessagingMessageListenerAdapter;
import org.springframework.amqp.rabbit.listener.api.RabbitListenerErrorHandler;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.util.ClassUtils;

/**
 * Advises a listener container factory's {@code createListenerContainer}:
 * <ul>
 * <li>the endpoint of a {@code @RabbitListener} method that returns a
 * {@code CompletionStage} or a {@code Mono} gets an adapter whose failed results follow
 * this library's rules (see {@link AsyncFailures}), since Spring AMQP settles those past
 * the container's advice chain, but one the application gave an {@code AdapterProvider}
 * of its own keeps that provider's adapter (which may do what ours cannot know of), whose
 * handler then hands it results through the same rules (see
 * {@link DecidingHandlerAdapter}); other endpoints, and a class-level
 * {@code @RabbitListener}'s, are left as they are;</li>
 * <li>the container created keeps the advice chain it has once created, the factory's or
 * the one a {@code ContainerCustomizer} gave it (a retry, tracing), with an outermost
 * advice of its own, which knows the container's acknowledge mode, and so can requeue a
 * message to the tail of its queue (see {@link TailRequeue}), and so does the adapter of
 * an asynchronous listener; a chain a customizer set without the configurer's advice gets
 * it around it;</li>
 * <li>the container's batching strategy is wrapped so that the advice knows the messages
 * split from a producer's batch (see {@link ProducerBatches}).</li>
 * </ul>
 */
final class ContainerCreationInterceptor implements MethodInterceptor {

	private static final @Nullable Class<?> MONO = mono();

	private final AsyncFailures failures;

	private final MethodRabbitListenerEndpoint.AdapterProvider adapters;

	private final BiFunction<Advice[], AbstractMessageListenerContainer, Advice @Nullable []> chains;

	private final CopyPublisher.Shared publishers;

	private final DecisionLog log;

	ContainerCreationInterceptor(AsyncFailures failures,
			BiFunction<Advice[], AbstractMessageListenerContainer, Advice @Nullable []> chains,
			CopyPublisher.Shared publishers, DecisionLog log) {
		this.failures = failures;
		this.adapters = new Adapters(failures);
		this.chains = chains;
		this.publishers = publishers;
		this.log = log;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		@Nullable Object[] arguments = invocation.getArguments();
		boolean adapterOfItsOwn = false;
		if (arguments.length == 1 && arguments[0] instanceof MethodRabbitListenerEndpoint endpoint
				&& !(endpoint instanceof MultiMethodRabbitListenerEndpoint) && isAsync(endpoint.getMethod())) {
			adapterOfItsOwn = !ListenerAdapterInternals.hasDefaultAdapterProvider(endpoint);
			if (!adapterOfItsOwn) {
				endpoint.setAdapterProvider(this.adapters);
			}
		}
		Object container = invocation.proceed();
		if (container instanceof AbstractMessageListenerContainer listenerContainer
				&& invocation.getThis() instanceof BaseRabbitListenerContainerFactory<?> factory) {
			// The factory's chain, or the one a ContainerCustomizer set after it
			Advice[] chain = SpringAmqpInternals.adviceChain(listenerContainer);
			if (chain == null) {
				chain = factory.getAdviceChain();
			}
			Advice[] configured = (chain != null) ? this.chains.apply(chain, listenerContainer) : null;
			if (configured != null) {
				listenerContainer.setAdviceChain(configured);
			}
			ProducerBatches.markIn(listenerContainer);
			if (listenerContainer.getMessageListener() instanceof AsyncDecidingListenerAdapter adapter) {
				adapter.requeueToTail(new TailRequeue(listenerContainer, this.publishers, this.log));
			}
			else if (adapterOfItsOwn
					&& listenerContainer.getMessageListener() instanceof MessagingMessageListenerAdapter adapter) {
				decideThrough(adapter, listenerContainer);
			}
		}
		return container;
	}

	// The application's adapter keeps its own handling; its handler hands it our
	// decisions first
	private void decideThrough(MessagingMessageListenerAdapter adapter, AbstractMessageListenerContainer container) {
		HandlerAdapter handler = ListenerAdapterInternals.handlerAdapter(adapter);
		InvocableHandlerMethod method = (handler != null) ? ListenerAdapterInternals.invocableHandlerMethod(handler)
				: null;
		if (handler != null && method != null && !(handler instanceof DecidingHandlerAdapter)) {
			DecidingHandlerAdapter deciding = new DecidingHandlerAdapter(method, handler, this.failures);
			deciding.requeueToTail(new TailRequeue(container, this.publishers, this.log));
			adapter.setHandlerAdapter(deciding);
		}
	}

	static boolean isMono(Object value) {
		return MONO != null && MONO.isInstance(value);
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
