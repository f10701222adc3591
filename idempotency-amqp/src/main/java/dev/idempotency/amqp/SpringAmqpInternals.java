package dev.idempotency.amqp;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.listener.adapter.HandlerAdapter;
import org.springframework.amqp.rabbit.batch.BatchingStrategy;
import org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.ContainerCustomizer;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.MethodRabbitListenerEndpoint;
import org.springframework.amqp.rabbit.listener.adapter.MessagingMessageListenerAdapter;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.util.ReflectionUtils;

/**
 * What Spring AMQP keeps without a public getter, read by reflection: a container's
 * advice chain and batching strategy once its factory and {@code ContainerCustomizer}
 * have set them, the {@code ContainerCustomizer} of a factory that cannot be proxied, the
 * {@code AdapterProvider} an endpoint was given and the handler of the adapter it made,
 * so that the starter adds to what the application configured instead of replacing it.
 * Where a later Spring AMQP no longer has the member, each answers as if the application
 * had set nothing.
 */
final class SpringAmqpInternals {

	private static final @Nullable Method ADVICE_CHAIN = accessible(
			ReflectionUtils.findMethod(AbstractMessageListenerContainer.class, "getAdviceChain"));

	private static final @Nullable Method BATCHING_STRATEGY = accessible(
			ReflectionUtils.findMethod(AbstractMessageListenerContainer.class, "getBatchingStrategy"));

	private static final @Nullable Field ADAPTER_PROVIDER = accessible(
			ReflectionUtils.findField(MethodRabbitListenerEndpoint.class, "adapterProvider"));

	private static final @Nullable Method HANDLER_ADAPTER = accessible(
			ReflectionUtils.findMethod(MessagingMessageListenerAdapter.class, "getHandlerAdapter"));

	private static final @Nullable Field HANDLER_METHOD = accessible(
			ReflectionUtils.findField(HandlerAdapter.class, "invokerHandlerMethod"));

	private static final @Nullable Field CONTAINER_CUSTOMIZER = accessible(
			ReflectionUtils.findField(AbstractRabbitListenerContainerFactory.class, "containerCustomizer"));

	private SpringAmqpInternals() {
	}

	static Advice @Nullable [] adviceChain(AbstractMessageListenerContainer container) {
		return (ADVICE_CHAIN != null) ? (Advice[]) ReflectionUtils.invokeMethod(ADVICE_CHAIN, container) : null;
	}

	static @Nullable BatchingStrategy batchingStrategy(AbstractMessageListenerContainer container) {
		return (BATCHING_STRATEGY != null)
				? (BatchingStrategy) ReflectionUtils.invokeMethod(BATCHING_STRATEGY, container) : null;
	}

	static @Nullable HandlerAdapter handlerAdapter(MessagingMessageListenerAdapter adapter) {
		return (HANDLER_ADAPTER != null) ? (HandlerAdapter) ReflectionUtils.invokeMethod(HANDLER_ADAPTER, adapter)
				: null;
	}

	// Null where the factory has none, or where it cannot be read
	static @Nullable ContainerCustomizer<?> containerCustomizer(AbstractRabbitListenerContainerFactory<?> factory) {
		return (CONTAINER_CUSTOMIZER != null)
				? (ContainerCustomizer<?>) ReflectionUtils.getField(CONTAINER_CUSTOMIZER, factory) : null;
	}

	// Null for the handler of several methods (a class-level @RabbitListener's)
	static @Nullable InvocableHandlerMethod invocableHandlerMethod(HandlerAdapter handler) {
		return (HANDLER_METHOD != null) ? (InvocableHandlerMethod) ReflectionUtils.getField(HANDLER_METHOD, handler)
				: null;
	}

	/**
	 * Return whether an endpoint has Spring AMQP's default {@code AdapterProvider}, or
	 * one that cannot be told from it.
	 * @param endpoint the endpoint
	 * @return {@code false} for a provider the application set
	 */
	static boolean hasDefaultAdapterProvider(MethodRabbitListenerEndpoint endpoint) {
		if (ADAPTER_PROVIDER == null) {
			return true;
		}
		Object provider = ReflectionUtils.getField(ADAPTER_PROVIDER, endpoint);
		return provider == null || provider.getClass().getEnclosingClass() == MethodRabbitListenerEndpoint.class;
	}

	private static <T extends java.lang.reflect.AccessibleObject> @Nullable T accessible(@Nullable T member) {
		if (member != null) {
			try {
				member.setAccessible(true);
			}
			catch (RuntimeException ex) {
				return null;
			}
		}
		return member;
	}

}
