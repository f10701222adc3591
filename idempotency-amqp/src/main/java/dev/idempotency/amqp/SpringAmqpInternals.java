package dev.idempotency.amqp;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.rabbit.batch.BatchingStrategy;
import org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.ContainerCustomizer;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.util.ReflectionUtils;

/**
 * What Spring AMQP keeps of a container and its factory without a public getter, read by
 * reflection: a container's advice chain and batching strategy once its factory and
 * {@code ContainerCustomizer} have set them, and the {@code ContainerCustomizer} of a
 * factory that cannot be proxied, so that the starter adds to what the application
 * configured instead of replacing it (a listener adapter's:
 * {@link ListenerAdapterInternals}). Where a later Spring AMQP no longer has the member,
 * each answers as if the application had set nothing.
 */
final class SpringAmqpInternals {

	private static final @Nullable Method ADVICE_CHAIN = accessible(
			ReflectionUtils.findMethod(AbstractMessageListenerContainer.class, "getAdviceChain"));

	private static final @Nullable Method BATCHING_STRATEGY = accessible(
			ReflectionUtils.findMethod(AbstractMessageListenerContainer.class, "getBatchingStrategy"));

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

	// Null where the factory has none, or where it cannot be read
	static @Nullable ContainerCustomizer<?> containerCustomizer(AbstractRabbitListenerContainerFactory<?> factory) {
		return (CONTAINER_CUSTOMIZER != null)
				? (ContainerCustomizer<?>) ReflectionUtils.getField(CONTAINER_CUSTOMIZER, factory) : null;
	}

	/**
	 * Return the members read by reflection here and in {@link ListenerAdapterInternals},
	 * for the hints of a native image.
	 * @return the members this Spring AMQP has
	 */
	static List<Member> reflected() {
		return Stream
			.of(ADVICE_CHAIN, BATCHING_STRATEGY, CONTAINER_CUSTOMIZER, ListenerAdapterInternals.ADAPTER_PROVIDER,
					ListenerAdapterInternals.HANDLER_ADAPTER, ListenerAdapterInternals.HANDLER_METHOD)
			.filter(Objects::nonNull)
			.map(Member.class::cast)
			.toList();
	}

	static <T extends java.lang.reflect.AccessibleObject> @Nullable T accessible(@Nullable T member) {
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
