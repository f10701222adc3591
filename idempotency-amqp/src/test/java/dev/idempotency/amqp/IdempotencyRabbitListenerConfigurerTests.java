package dev.idempotency.amqp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyException;
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
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.listener.ListenerExecutionFailedException;
import org.springframework.amqp.rabbit.config.DirectRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.RetryInterceptorBuilder;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.listener.MethodRabbitListenerEndpoint;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.amqp.listener.ContainerUtils;
import org.springframework.amqp.rabbit.retry.RejectAndDontRequeueRecoverer;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.util.ErrorHandler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;

class IdempotencyRabbitListenerConfigurerTests {

	private static final Message MESSAGE = new Message(new byte[0], new MessageProperties());

	private final IdempotencyRabbitListenerConfigurer configurer = new IdempotencyRabbitListenerConfigurer(
			new InProgressBackOff(Duration.ofMillis(100), 3, Duration.ofSeconds(10)));

	private final AtomicInteger calls = new AtomicInteger();

	@Test
	void exceptionsNoRedeliveryCanChangeRejectWithoutRequeueInEveryAckMode() {
		for (IdempotencyException exception : new IdempotencyException[] { new IdempotencyKeyReuseException("op", "k"),
				new IdempotencyKeyException("blank key"), new IdempotencyPayloadException("cannot fingerprint", null),
				new IdempotencyReplayException("not replayable") }) {
			Throwable thrown = catchThrowable(() -> listenerThrowing(exception).invokeListener(null, MESSAGE));
			assertThat(thrown).isInstanceOf(AmqpRejectAndDontRequeueException.class).hasCause(exception);
			assertThat(ContainerUtils.shouldRequeue(true, thrown, LogFactory.getLog(getClass()))).isFalse();
			assertThat(ContainerUtils.isRejectManual(thrown)).isTrue();
		}
	}

	@Test
	void inProgressIsHeldForTheBackOffThenRequeuedInEveryAckMode() {
		Delegate listener = listenerThrowing(new IdempotencyInProgressException("op", "k", Duration.ofSeconds(30)));
		long started = System.nanoTime();
		Throwable thrown = catchThrowable(() -> listener.invokeListener(null, MESSAGE));
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
		assertThat(thrown).isInstanceOf(ListenerExecutionFailedException.class)
			.cause()
			.isInstanceOf(ImmediateRequeueAmqpException.class);
		assertThat(((ListenerExecutionFailedException) thrown).getFailedMessage()).isSameAs(MESSAGE);
		assertThat(ContainerUtils.shouldRequeue(false, thrown, LogFactory.getLog(getClass()))).isTrue();
		assertThat(ContainerUtils.isRejectManual(thrown)).isTrue();
	}

	@Test
	void inProgressDelaysGrowPerKeyAndNeverOutlastTheLease() {
		Delegate listener = listenerThrowing(new IdempotencyInProgressException("op", "k", Duration.ofSeconds(30)));
		catchThrowable(() -> listener.invokeListener(null, MESSAGE));
		long started = System.nanoTime();
		catchThrowable(() -> listener.invokeListener(null, MESSAGE));
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		Delegate shortLease = listenerThrowing(new IdempotencyInProgressException("op", "k", Duration.ofMillis(1)));
		started = System.nanoTime();
		catchThrowable(() -> shortLease.invokeListener(null, MESSAGE));
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(250));
	}

	@Test
	void storeFailuresAndLostLocksAreRequeuedNeverDropped() {
		for (IdempotencyException exception : new IdempotencyException[] { new IdempotencyStoreException("store down"),
				new IdempotencyCompletionException("not recorded", null),
				new IdempotencyLockLostException("op", "k", 3) }) {
			Throwable thrown = catchThrowable(() -> listenerThrowing(exception).invokeListener(null, MESSAGE));
			assertThat(thrown).isInstanceOf(ListenerExecutionFailedException.class);
			assertThat(ContainerUtils.shouldRequeue(false, thrown, LogFactory.getLog(getClass()))).isTrue();
		}
	}

	@Test
	void retryInterceptorAndRecovererBetweenNeverSeeTheseExceptions() {
		Advice retry = RetryInterceptorBuilder.stateless()
			.maxRetries(3)
			.recoverer(new RejectAndDontRequeueRecoverer())
			.build();
		Delegate listener = proxy(failing(new IdempotencyInProgressException("op", "k", Duration.ofMillis(1))), retry);
		assertThat(catchThrowable(() -> listener.invokeListener(null, MESSAGE)))
			.hasCauseInstanceOf(ImmediateRequeueAmqpException.class);
		assertThat(this.calls).hasValue(1);
	}

	@Test
	void otherExceptionsAreLeftToTheContainersOwnChain() {
		IllegalStateException failure = new IllegalStateException("boom");
		Advice retry = RetryInterceptorBuilder.stateless()
			.maxRetries(2)
			.backOffOptions(1, 1, 1)
			.recoverer((message, cause) -> {
				throw new AmqpRejectAndDontRequeueException("recovered", cause);
			})
			.build();
		Delegate listener = proxy(failing(failure), retry);
		Throwable thrown = catchThrowable(() -> listener.invokeListener(null, MESSAGE));
		assertThat(thrown).isInstanceOf(AmqpRejectAndDontRequeueException.class).hasRootCause(failure);
		assertThat(this.calls).hasValue(3);
		assertThat(catchThrowable(() -> proxy(failing(failure)).invokeListener(null, MESSAGE)))
			.isInstanceOf(ListenerExecutionFailedException.class)
			.cause()
			.isSameAs(failure);
	}

	@Test
	void replayReturnsNormallySoTheMessageIsAcknowledged() {
		proxy((channel, data) -> this.calls.incrementAndGet()).invokeListener(null, MESSAGE);
		assertThat(this.calls).hasValue(1);
	}

	@Test
	void errorHandlerHandsOnEveryExceptionButThoseOfTheMessagesTheAdviceRequeuedOrRejected() {
		List<Throwable> handled = new ArrayList<>();
		ErrorHandler errorHandler = this.configurer.errorHandler(handled::add);
		Throwable requeued = catchThrowable(
				() -> listenerThrowing(new IdempotencyInProgressException("op", "k", Duration.ofMillis(1)))
					.invokeListener(null, MESSAGE));
		Throwable rejected = catchThrowable(
				() -> listenerThrowing(new IdempotencyKeyReuseException("op", "k")).invokeListener(null, MESSAGE));
		Throwable own = catchThrowable(
				() -> proxy(failing(new IllegalStateException("boom"))).invokeListener(null, MESSAGE));
		errorHandler.handleError(requeued);
		errorHandler.handleError(rejected);
		errorHandler.handleError(own);
		assertThat(handled).containsExactly(own);
		assertThat(this.configurer.errorHandler(errorHandler)).isSameAs(errorHandler);
	}

	@Test
	void factoryGetsTheAdviceAroundItsOwnChainOnce() {
		Advice own = (MethodInterceptor) (invocation) -> invocation.proceed();
		SimpleRabbitListenerContainerFactory simple = new SimpleRabbitListenerContainerFactory();
		simple.setAdviceChain(own);
		this.configurer.configure(simple);
		new IdempotencyRabbitListenerConfigurer(InProgressBackOff.DEFAULT).configure(simple);
		Advice[] chain = simple.getAdviceChain();
		assertThat(chain).hasSize(3);
		assertThat(chain[0]).isInstanceOf(FailureDecidingInterceptor.class);
		// Wrapped, so that a retry's every proceed() runs the rest of the chain again
		assertThat(chain[1]).isInstanceOf(RepeatableProceedInterceptor.class).extracting("delegate").isSameAs(own);
		assertThat(chain[2]).isInstanceOf(FailureCapturingInterceptor.class);
		DirectRabbitListenerContainerFactory direct = new DirectRabbitListenerContainerFactory();
		this.configurer.configure(direct);
		assertThat(IdempotencyRabbitListenerConfigurer.isConfigured(direct.getAdviceChain())).isTrue();
	}

	// An AOT build generates the class that proxyType returns; the proxy that applyTo
	// makes at run time, in a native image, must be of that very class
	@Test
	void proxyTypeIsTheClassOfTheProxyThatApplyToMakes() {
		assertThat(this.configurer.applyTo(new SimpleRabbitListenerContainerFactory()).getClass())
			.isSameAs(IdempotencyRabbitListenerConfigurer.proxyType(SimpleRabbitListenerContainerFactory.class));
		assertThat(this.configurer.applyTo(new DirectRabbitListenerContainerFactory()).getClass())
			.isSameAs(IdempotencyRabbitListenerConfigurer.proxyType(DirectRabbitListenerContainerFactory.class));
		assertThat(IdempotencyRabbitListenerConfigurer.proxyType(FinalFactory.class)).isSameAs(FinalFactory.class);
		assertThat(IdempotencyRabbitListenerConfigurer.proxyType(String.class)).isSameAs(String.class);
	}

	@Test
	void factoryFromApplyToGivesAsyncEndpointsAnAdapterThatSettlesTheirResultsAndEachContainerAnAdviceOfItsOwn()
			throws Exception {
		SimpleRabbitListenerContainerFactory factory = this.configurer
			.applyTo(new SimpleRabbitListenerContainerFactory());
		assertThat(AopUtils.isCglibProxy(factory)).isTrue();
		assertThat(IdempotencyRabbitListenerConfigurer.isConfigured(factory.getAdviceChain())).isTrue();
		SimpleMessageListenerContainer future = factory.createListenerContainer(endpoint("future"));
		SimpleMessageListenerContainer mono = factory.createListenerContainer(endpoint("mono"));
		SimpleMessageListenerContainer plain = factory.createListenerContainer(endpoint("plain"));
		assertThat(future.getMessageListener()).isInstanceOf(AsyncDecidingListenerAdapter.class);
		assertThat(mono.getMessageListener()).isInstanceOf(AsyncDecidingListenerAdapter.class);
		assertThat(plain.getMessageListener()).isNotInstanceOf(AsyncDecidingListenerAdapter.class);
		assertThat(IdempotencyRabbitListenerConfigurer.settlesAsyncResults(plain.getMessageListener())).isTrue();
		Advice[] futureChain = (Advice[]) ReflectionTestUtils.getField(future, "adviceChain");
		Advice[] plainChain = (Advice[]) ReflectionTestUtils.getField(plain, "adviceChain");
		assertThat(futureChain[0]).isInstanceOf(FailureDecidingInterceptor.class)
			.isNotSameAs(factory.getAdviceChain()[0])
			.isNotSameAs(plainChain[0]);
		assertThat(this.configurer.applyTo(factory)).isSameAs(factory);
		SimpleMessageListenerContainer unadvised = new SimpleRabbitListenerContainerFactory()
			.createListenerContainer(endpoint("future"));
		assertThat(IdempotencyRabbitListenerConfigurer.settlesAsyncResults(unadvised.getMessageListener())).isFalse();
	}

	@Test
	void adviceAddedPastTheRulesOfAConfiguredChainIsPutBetweenThemAgain() {
		MethodInterceptor tracing = (invocation) -> invocation.proceed();
		MethodInterceptor retry = (invocation) -> invocation.proceed();
		Advice[] configured = this.configurer.adviceChain(tracing);
		List<Advice> extended = new ArrayList<>(List.of(retry));
		extended.addAll(List.of(configured));
		extended.add(retry);
		Advice[] chain = this.configurer.adviceChain(extended.toArray(new Advice[0]));
		assertThat(chain).hasSize(5);
		assertThat(chain[0]).isSameAs(configured[0]);
		assertThat(chain[2]).isSameAs(configured[1]);
		assertThat(chain[4]).isSameAs(configured[2]);
		assertThat(chain[1]).isInstanceOf(RepeatableProceedInterceptor.class);
		assertThat(((RepeatableProceedInterceptor) chain[1]).delegate()).isSameAs(retry);
		assertThat(((RepeatableProceedInterceptor) chain[3]).delegate()).isSameAs(retry);
		assertThat(this.configurer.adviceChain(chain)).containsExactly(chain);
		try (IdempotencyRabbitListenerConfigurer other = new IdempotencyRabbitListenerConfigurer(
				new InProgressBackOff(Duration.ofMillis(10), 1, Duration.ofMillis(10)))) {
			Advice[] others = other.adviceChain(tracing);
			assertThat(this.configurer.adviceChain(others)).containsExactly(others);
		}
	}

	@Test
	void badArgumentsAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new IdempotencyRabbitListenerConfigurer(null))
			.withMessage("'backOff' must not be null");
		assertThatIllegalArgumentException().isThrownBy(() -> this.configurer.adviceChain((Advice) null))
			.withMessage("'chain' must not contain null elements");
	}

	private static MethodRabbitListenerEndpoint endpoint(String method) throws NoSuchMethodException {
		MethodRabbitListenerEndpoint endpoint = new MethodRabbitListenerEndpoint();
		endpoint.setBean(new Listeners());
		endpoint.setMethod(Listeners.class.getDeclaredMethod(method, String.class));
		DefaultMessageHandlerMethodFactory handlerMethods = new DefaultMessageHandlerMethodFactory();
		handlerMethods.afterPropertiesSet();
		endpoint.setMessageHandlerMethodFactory(handlerMethods);
		endpoint.setQueueNames("events");
		return endpoint;
	}

	private Delegate listenerThrowing(IdempotencyException exception) {
		return proxy(failing(exception));
	}

	private Delegate failing(RuntimeException exception) {
		return (channel, data) -> {
			this.calls.incrementAndGet();
			throw new ListenerExecutionFailedException("Listener threw exception", exception, MESSAGE);
		};
	}

	private Delegate proxy(Delegate target, Advice... chain) {
		ProxyFactory factory = new ProxyFactory(target);
		factory.addInterface(Delegate.class);
		for (Advice advice : this.configurer.adviceChain(chain)) {
			factory.addAdvice(advice);
		}
		return (Delegate) factory.getProxy();
	}

	static class Listeners {

		CompletableFuture<Void> future(String event) {
			return CompletableFuture.completedFuture(null);
		}

		Mono<Void> mono(String event) {
			return Mono.empty();
		}

		void plain(String event) {
		}

	}

	/**
	 * What a container's advice chain wraps.
	 */
	interface Delegate {

		void invokeListener(Object channel, Object data);

	}

	static final class FinalFactory extends SimpleRabbitListenerContainerFactory {

	}

}
