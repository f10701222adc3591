package dev.idempotency.amqp;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import org.springframework.amqp.listener.adapter.HandlerAdapter;
import org.springframework.amqp.rabbit.listener.MethodRabbitListenerEndpoint;
import org.springframework.amqp.rabbit.listener.adapter.MessagingMessageListenerAdapter;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.util.ReflectionUtils;

/**
 * What Spring AMQP keeps of a listener endpoint and its adapter without a public getter,
 * read by reflection as {@link SpringAmqpInternals} reads a container's: the
 * {@code AdapterProvider} an endpoint was given and the handler of the adapter it made.
 * Where a later Spring AMQP no longer has the member, each answers as if the application
 * had set nothing.
 */
final class ListenerAdapterInternals {

	static final @Nullable Field ADAPTER_PROVIDER = SpringAmqpInternals
		.accessible(ReflectionUtils.findField(MethodRabbitListenerEndpoint.class, "adapterProvider"));

	static final @Nullable Method HANDLER_ADAPTER = SpringAmqpInternals
		.accessible(ReflectionUtils.findMethod(MessagingMessageListenerAdapter.class, "getHandlerAdapter"));

	static final @Nullable Field HANDLER_METHOD = SpringAmqpInternals
		.accessible(ReflectionUtils.findField(HandlerAdapter.class, "invokerHandlerMethod"));

	private ListenerAdapterInternals() {
	}

	static @Nullable HandlerAdapter handlerAdapter(MessagingMessageListenerAdapter adapter) {
		return (HANDLER_ADAPTER != null) ? (HandlerAdapter) ReflectionUtils.invokeMethod(HANDLER_ADAPTER, adapter)
				: null;
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

}
