package dev.idempotency.amqp;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyPayloadException;
import dev.idempotency.IdempotencyReplayException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.messaging.InProgressBackOff;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.rabbit.config.BaseRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.adapter.MessagingMessageListenerAdapter;
import org.springframework.util.Assert;
import org.springframework.util.ErrorHandler;

/**
 * Makes RabbitMQ listener containers handle the exceptions of {@code @Idempotent}
 * listeners (thrown by the listener or by a method it calls, in any acknowledge mode but
 * {@code NONE}):
 * <ul>
 * <li>{@link IdempotencyInProgressException}: the message is held by the consumer for the
 * {@link InProgressBackOff} (never longer than the other attempt's lease has left,
 * counted per key and per message), then requeued, to the tail of its queue in a
 * container created by a factory from {@link #applyTo}; it is never acknowledged before a
 * copy is queued, nor dead-lettered, while the other attempt might still fail.</li>
 * <li>{@link IdempotencyStoreException} (including
 * {@link dev.idempotency.IdempotencyCompletionException}) and
 * {@link IdempotencyLockLostException}: held for the same back-off, counted in failures
 * of the store in a row and bounded by its longest delay only, then requeued; never
 * dropped.</li>
 * <li>{@link IdempotencyKeyException}, {@link IdempotencyKeyReuseException},
 * {@link IdempotencyPayloadException} and {@link IdempotencyReplayException}, which no
 * redelivery of the message can change: rejected without requeue (to the queue's
 * dead-letter exchange, if any).</li>
 * <li>A replay returns normally, so the message is acknowledged; every other exception is
 * left to the container's advice chain, error handler and settings, unchanged.</li>
 * </ul>
 * It works by advice: one outermost and one innermost around the container's own advice
 * chain (Spring Boot's retry interceptor, or yours), so that retries and message
 * recoverers never see these exceptions, and the container's error handler sees the
 * decision. A listener that returns a {@code CompletableFuture} or {@code Mono} has its
 * message settled past that chain, so {@link #applyTo} gives its endpoint an adapter that
 * follows the same rules. Spring Boot's auto-configuration applies it to every listener
 * container factory bean; apply it yourself to a container you create without a factory
 * bean (whose copies are then requeued at the head of the queue, and whose listeners'
 * failed asynchronous results are left to Spring AMQP): <pre class="code">
 * container.setAdviceChain(configurer.adviceChain(myRetryInterceptor));
 * container.setErrorHandler(configurer.errorHandler(container.getErrorHandler()));
 * </pre>
 * <p>
 * The messages of asynchronous listeners are requeued after their back-off on a few
 * daemon threads of this configurer's own, which {@link #close()} stops (Spring does so
 * for a bean when its context closes).
 * <p>
 * The advice logs each message it requeues or rejects in one line, by the logger
 * {@code dev.idempotency.amqp}: a requeue at DEBUG (a duplicate of a message in progress
 * is handled so; a store failure is also warned of, at most once a minute), a rejection
 * at WARN. The {@link #errorHandler(ErrorHandler) error handler} keeps the container's
 * from logging them again.
 */
public final class IdempotencyRabbitListenerConfigurer implements AutoCloseable {

	private final RequeueScheduler requeues = new RequeueScheduler();

	private final ListenerAdviceChains chains;

	private final ContainerFactoryProxies proxies;

	/**
	 * Create a configurer whose containers requeue after the given back-off.
	 * @param backOff the back-off before a requeue
	 */
	public IdempotencyRabbitListenerConfigurer(InProgressBackOff backOff) {
		Assert.notNull(backOff, "'backOff' must not be null");
		ThreadLocal<ListenerFailure> captured = new ThreadLocal<>();
		RedeliveryDelays delays = new RedeliveryDelays(backOff);
		DecisionLog log = new DecisionLog();
		CopyPublisher.Shared publishers = TailRequeue.publishers();
		this.chains = new ListenerAdviceChains(new FailureDecidingInterceptor(captured, delays, log, null),
				new FailureCapturingInterceptor(captured), publishers);
		this.proxies = new ContainerFactoryProxies(
				new ContainerCreationInterceptor(new AsyncFailures(delays, log, this.requeues),
						this.chains::forContainer, publishers, log),
				this.chains);
	}

	/**
	 * Configure the containers a factory creates from now on, around the advice chain it
	 * has. A factory already configured by any configurer is left as it is.
	 * @param factory the factory
	 */
	public void configure(BaseRabbitListenerContainerFactory<?> factory) {
		Assert.notNull(factory, "'factory' must not be null");
		Advice[] chain = factory.getAdviceChain();
		factory.setAdviceChain(adviceChain((chain != null) ? chain : new Advice[0]));
	}

	/**
	 * Configure a factory as {@link #configure(BaseRabbitListenerContainerFactory)} does,
	 * and return a proxy of it (of its class) that also applies the rules to the
	 * containers it creates where the advice chain cannot:
	 * <ul>
	 * <li>the {@code CompletableFuture}, {@code CompletionStage} or {@code Mono} that a
	 * {@code @RabbitListener} method returns, whose failure Spring AMQP settles past the
	 * advice chain (with {@code default-requeue-rejected} as the only rule);</li>
	 * <li>a message whose key is in progress is requeued to the tail of its queue, not to
	 * its head, where that can be done without losing it.</li>
	 * </ul>
	 * A factory that is a proxy already gets the advice added, unless its configuration
	 * is frozen; one of a class that cannot be proxied by class (final, sealed, or
	 * refused by CGLIB) is only configured, in place, with a warning, and its
	 * {@code ContainerCustomizer} wrapped so that the rules stay around an advice chain
	 * it sets.
	 * @param <F> the type of the factory
	 * @param factory the factory
	 * @return the proxy to use in place of the factory
	 */
	public <F extends BaseRabbitListenerContainerFactory<?>> F applyTo(F factory) {
		configure(factory);
		return this.proxies.proxy(factory);
	}

	/**
	 * Return the class of the proxy that {@link #applyTo} makes of a factory of a class,
	 * generating that class now. Ahead-of-time processing asks for it (through a
	 * {@code SmartInstantiationAwareBeanPostProcessor}'s {@code determineBeanType}) so
	 * that the class is generated at build time: a native image cannot generate one at
	 * run time, and the factory would be left unproxied.
	 * @param factoryClass the class of a factory
	 * @return the proxy class, or the class itself if it cannot be proxied by class
	 */
	public static Class<?> proxyClass(Class<? extends BaseRabbitListenerContainerFactory<?>> factoryClass) {
		Assert.notNull(factoryClass, "'factoryClass' must not be null");
		return ContainerFactoryProxies.proxyClass(factoryClass);
	}

	/**
	 * Return an advice chain for
	 * {@link AbstractMessageListenerContainer#setAdviceChain(Advice...)}: the given one
	 * between this configurer's two advices, or unchanged if it already holds another
	 * configurer's. A chain that holds this configurer's advices anywhere (a
	 * {@code ContainerCustomizer} that kept a configured chain and added to it) gets them
	 * outermost and innermost again, so that no advice it added acts past the rules (a
	 * retry whose recoverer republishes a message, which would acknowledge a copy of a
	 * key in progress). Each {@link MethodInterceptor} of it is wrapped so that every
	 * {@code proceed()} it calls (a retry interceptor calls one per attempt) runs this
	 * configurer's inner advice again.
	 * @param chain the container's own advice chain, outermost first
	 * @return the advice chain to set
	 */
	public Advice[] adviceChain(Advice... chain) {
		return this.chains.around(chain);
	}

	/**
	 * Return an error handler for
	 * {@link AbstractMessageListenerContainer#setErrorHandler(ErrorHandler)} that hands
	 * the given one every exception but those of the messages the advice of a configurer
	 * requeued or rejected, which it has logged in one line each. Spring AMQP's default
	 * {@code ConditionalRejectingErrorHandler} only logs those, at WARN with their stack
	 * traces (Spring Boot's auto-configuration wraps it in every container that has it);
	 * wrap an error handler of your own if it should not see them either.
	 * @param delegate the error handler for every other exception
	 * @return the error handler to set
	 */
	public ErrorHandler errorHandler(ErrorHandler delegate) {
		Assert.notNull(delegate, "'delegate' must not be null");
		return (delegate instanceof DecidedFailuresErrorHandler) ? delegate : new DecidedFailuresErrorHandler(delegate);
	}

	/**
	 * Stop the threads that requeue the messages of asynchronous listeners, requeueing at
	 * once those still held for their back-off. Spring calls it when the context closes,
	 * after the containers have stopped.
	 */
	@Override
	public void close() {
		this.requeues.close();
	}

	/**
	 * Return whether a container's message listener, if it returns a
	 * {@code CompletableFuture}, {@code CompletionStage} or {@code Mono}, has the adapter
	 * that {@link #applyTo} gives it, or the application's own with the handler it gives
	 * that, whose failed results follow the rules.
	 * @param listener the container's message listener
	 * @return {@code false} for a listener that returns such results without either
	 */
	public static boolean settlesAsyncResults(@Nullable Object listener) {
		return !(listener instanceof MessagingMessageListenerAdapter adapter) || !adapter.isAsyncReplies()
				|| listener instanceof AsyncDecidingListenerAdapter
				|| ListenerAdapterInternals.handlerAdapter(adapter) instanceof DecidingHandlerAdapter;
	}

	/**
	 * Return whether an advice chain already holds the advice of a configurer.
	 * @param chain the advice chain
	 * @return whether it is configured
	 */
	public static boolean isConfigured(Advice... chain) {
		return ListenerAdviceChains.isConfigured(chain);
	}

}
