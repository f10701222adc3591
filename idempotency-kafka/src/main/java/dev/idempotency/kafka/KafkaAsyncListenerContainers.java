package dev.idempotency.kafka;

import java.lang.reflect.Modifier;

import org.springframework.aop.framework.AbstractAdvisingBeanPostProcessor;

/**
 * Makes every listener container factory bean create containers that treat a listener
 * whose result the {@link KafkaAsyncListenerAdvisor} awaits as synchronous: a listener
 * method that declares a {@code CompletableFuture} or a {@code Mono} (one that declares a
 * {@code CompletionStage} spring-kafka takes as synchronous already). spring-kafka would
 * otherwise commit such a listener's records out of order, waiting for acknowledgements
 * that never come for the records its error handler or after-rollback processor seeks
 * back after a recovered one, and pause that consumer for good, in container transactions
 * and for batch listeners too. Such a container keeps its own ack mode, and commits a
 * record once the listener has returned, its result complete; a listener with an
 * {@code Acknowledgment} parameter gets the container's own in a manual ack mode, and
 * otherwise one whose {@code acknowledge()} does nothing. A container told to commit out
 * of order ({@code asyncAcks}) is left as it is.
 * <p>
 * Each factory bean is proxied (by subclass, so that it keeps its type), so that every
 * container it creates from a {@code @KafkaListener} endpoint is fixed before it starts,
 * retry-topic containers included. Containers from a factory that is not a bean, and
 * those of an endpoint whose asynchronous methods the advisor does not await (one
 * registered without {@code @KafkaListener}, on a bean it has not advised), keep
 * spring-kafka's out-of-order commits, since they would otherwise commit a record before
 * its result completes.
 */
public final class KafkaAsyncListenerContainers extends AbstractAdvisingBeanPostProcessor {

	private static final long serialVersionUID = 1L;

	/**
	 * Create the post-processor.
	 */
	public KafkaAsyncListenerContainers() {
		this.advisor = new SynchronousContainersAdvisor();
		setProxyTargetClass(true);
	}

	// A final factory class cannot be proxied by subclass: left as it is, so that the
	// application still starts, its containers keeping spring-kafka's commits
	@Override
	protected boolean isEligible(Class<?> targetClass) {
		return !Modifier.isFinal(targetClass.getModifiers()) && super.isEligible(targetClass);
	}

}
