package dev.idempotency.kafka;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;

/**
 * Advisor that makes the listener container wait for the result of a
 * {@code @KafkaListener} (or {@code @KafkaHandler}) method declared to return a
 * {@code CompletableFuture}, a {@code CompletionStage} or a Reactor {@code Mono}, so that
 * the rules of {@link IdempotencyKafkaErrorHandling} hold for it exactly as for a
 * listener that returns a value.
 * <p>
 * spring-kafka handles such results on a path of its own: it acknowledges a record whose
 * result failed before it hands the failure to the error handler, which commits the
 * offset of a record the error handler then delivers again, and a restart or a rebalance
 * loses it (a record whose key was in progress elsewhere, or that met a store outage). On
 * the consumer thread this advice waits for the result instead: a failure is thrown
 * there, as a listener that returns a value throws it, and a value is handed to
 * spring-kafka as a completed result (for a reply, say). The consumer thread is then held
 * for the work as with any other listener, so {@code max.poll.interval.ms} bounds it the
 * same way. Calls on other threads (a test calling the method) get the result as it is.
 * <p>
 * It is ordered first, so that it waits for what spring-kafka would see, after any
 * {@code @Idempotent} advice on the same method: {@link PriorityOrdered}, so that it
 * comes before an advisor ordered {@link Ordered#HIGHEST_PRECEDENCE} too
 * ({@code idempotency.advisor-order}, say), which would otherwise hand spring-kafka a
 * refusal as a failed result.
 */
public final class KafkaAsyncListenerAdvisor extends AbstractPointcutAdvisor implements PriorityOrdered {

	private final transient Pointcut pointcut = new AsyncListenerPointcut();

	private final transient Advice advice = new AsyncListenerResultInterceptor();

	/**
	 * Create the advisor, ordered {@link Ordered#HIGHEST_PRECEDENCE}.
	 */
	public KafkaAsyncListenerAdvisor() {
		setOrder(Ordered.HIGHEST_PRECEDENCE);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.advice;
	}

}
