package dev.idempotency.autoconfigure.amqp;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.amqp.IdempotencyRabbitListenerConfigurer;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.listener.ConditionalRejectingErrorHandler;
import org.springframework.amqp.rabbit.annotation.RabbitHandler;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.BaseRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.DirectRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ErrorHandler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

@ExtendWith(OutputCaptureExtension.class)
class IdempotencyRabbitAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withPropertyValues("idempotency.store=memory")
		.withConfiguration(AutoConfigurations.of(RabbitAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				IdempotencyRabbitAutoConfiguration.class));

	@Test
	void bootsSimpleFactoryGetsTheRulesAroundItsRetryInterceptor() {
		this.runner.withPropertyValues("spring.rabbitmq.listener.simple.retry.enabled=true").run((context) -> {
			assertThat(context).hasSingleBean(IdempotencyRabbitListenerConfigurer.class);
			Advice[] chain = context
				.getBean("rabbitListenerContainerFactory", SimpleRabbitListenerContainerFactory.class)
				.getAdviceChain();
			assertThat(chain).hasSize(3);
			assertThat(IdempotencyRabbitListenerConfigurer.isConfigured(chain[0])).isTrue();
			AtomicInteger calls = new AtomicInteger();
			Runnable failsOnce = () -> {
				if (calls.incrementAndGet() == 1) {
					throw new IllegalStateException("transient");
				}
			};
			proxy(failsOnce, chain).run();
			assertThat(calls).hasValue(2);
		});
	}

	@Test
	void bootsDirectFactoryGetsTheRulesToo() {
		this.runner.withPropertyValues("spring.rabbitmq.listener.type=direct").run((context) -> {
			DirectRabbitListenerContainerFactory factory = context.getBean("rabbitListenerContainerFactory",
					DirectRabbitListenerContainerFactory.class);
			assertThat(IdempotencyRabbitListenerConfigurer.isConfigured(factory.getAdviceChain())).isTrue();
		});
	}

	@Test
	void applicationsOwnFactoryKeepsItsAdviceInside() {
		AtomicInteger ownCalls = new AtomicInteger();
		Advice own = (MethodInterceptor) (invocation) -> {
			ownCalls.incrementAndGet();
			return invocation.proceed();
		};
		this.runner.withBean("ownFactory", SimpleRabbitListenerContainerFactory.class, () -> {
			SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
			factory.setAdviceChain(own);
			return factory;
		}).run((context) -> {
			Advice[] chain = context.getBean("ownFactory", BaseRabbitListenerContainerFactory.class).getAdviceChain();
			assertThat(chain).hasSize(3);
			proxy(() -> {
			}, chain).run();
			assertThat(ownCalls).hasValue(1);
		});
	}

	@Test
	void backsOffToTheApplicationsConfigurer() {
		IdempotencyRabbitListenerConfigurer own = new IdempotencyRabbitListenerConfigurer(InProgressBackOff.DEFAULT);
		this.runner.withBean(IdempotencyRabbitListenerConfigurer.class, () -> own).run((context) -> {
			assertThat(context).getBean(IdempotencyRabbitListenerConfigurer.class).isSameAs(own);
			Advice[] chain = context
				.getBean("rabbitListenerContainerFactory", SimpleRabbitListenerContainerFactory.class)
				.getAdviceChain();
			assertThat(chain[0]).isSameAs(own.adviceChain()[0]);
		});
	}

	@Test
	void inProgressRetryPropertiesAreBound() {
		this.runner
			.withPropertyValues("idempotency.messaging.in-progress-retry.initial-interval=400ms",
					"idempotency.messaging.in-progress-retry.max-interval=2s")
			.run((context) -> {
				Advice[] chain = context
					.getBean("rabbitListenerContainerFactory", SimpleRabbitListenerContainerFactory.class)
					.getAdviceChain();
				long started = System.nanoTime();
				Throwable thrown = catchThrowable(() -> listenerInProgress(chain).run());
				assertThat(thrown).hasCauseInstanceOf(ImmediateRequeueAmqpException.class);
				assertThat(Duration.ofNanos(System.nanoTime() - started))
					.isGreaterThanOrEqualTo(Duration.ofMillis(400));
			});
	}

	@Test
	void invalidInProgressRetryFailsStartup() {
		this.runner.withPropertyValues("idempotency.messaging.in-progress-retry.multiplier=0.5")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("'multiplier' must be at least 1"));
	}

	@Test
	void warnsOfAContainerThatAcknowledgesOnDelivery(CapturedOutput output) {
		this.runner.withUserConfiguration(Listeners.class)
			.withPropertyValues("spring.rabbitmq.listener.simple.auto-startup=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output)
					.contains("RabbitMQ listener container 'on-delivery' acknowledges messages on delivery")
					.doesNotContain("'on-return'");
			});
	}

	@Test
	void asyncListenerMethodsGetTheRulesAndAClassLevelListenerThatReturnsAFutureIsWarnedOf(CapturedOutput output) {
		this.runner.withUserConfiguration(AsyncListeners.class, ClassLevelAsyncListener.class)
			.withPropertyValues("spring.rabbitmq.listener.simple.auto-startup=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RabbitListenerEndpointRegistry registry = context.getBean(RabbitListenerEndpointRegistry.class);
				assertThat(IdempotencyRabbitListenerConfigurer
					.settlesAsyncResults(((AbstractMessageListenerContainer) registry.getListenerContainer("future"))
						.getMessageListener()))
					.isTrue();
				assertThat(output)
					.contains("RabbitMQ listener container 'class-level' has a listener that returns a"
							+ " CompletableFuture or Mono")
					.doesNotContain("container 'future' has a listener");
			});
	}

	@Test
	void defaultErrorHandlerOfEachContainerIsWrappedAndAnApplicationsOwnIsKept() {
		this.runner.withUserConfiguration(ErrorHandlers.class)
			.withPropertyValues("spring.rabbitmq.listener.simple.auto-startup=false")
			.run((context) -> {
				RabbitListenerEndpointRegistry registry = context.getBean(RabbitListenerEndpointRegistry.class);
				ErrorHandler wrapped = ((AbstractMessageListenerContainer) registry
					.getListenerContainer("default-error-handler")).getErrorHandler();
				assertThat(wrapped).isNotInstanceOf(ConditionalRejectingErrorHandler.class);
				assertThat(context.getBean(IdempotencyRabbitListenerConfigurer.class).errorHandler(wrapped))
					.isSameAs(wrapped);
				assertThat(((AbstractMessageListenerContainer) registry.getListenerContainer("own-error-handler"))
					.getErrorHandler()).isSameAs(ErrorHandlers.OWN);
			});
	}

	@Test
	void absentWithoutSpringRabbit() {
		this.runner.withClassLoader(new FilteredClassLoader(BaseRabbitListenerContainerFactory.class))
			.withConfiguration(
					AutoConfigurations.of(IdempotencyAutoConfiguration.class, IdempotencyRabbitAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(IdempotencyRabbitListenerConfigurer.class));
	}

	@Test
	void absentWhenIdempotencyIsDisabled() {
		this.runner.withPropertyValues("idempotency.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(IdempotencyRabbitListenerConfigurer.class);
			assertThat(context.getBean("rabbitListenerContainerFactory", SimpleRabbitListenerContainerFactory.class)
				.getAdviceChain()).isNull();
			assertThat(context).hasSingleBean(CachingConnectionFactory.class);
		});
	}

	static class Listeners {

		@RabbitListener(id = "on-delivery", queues = "payments", ackMode = "NONE")
		void onDelivery(String payment) {
		}

		@RabbitListener(id = "on-return", queues = "refunds")
		void onReturn(String refund) {
		}

	}

	static class AsyncListeners {

		@RabbitListener(id = "future", queues = "payments")
		CompletableFuture<Void> future(String payment) {
			return CompletableFuture.completedFuture(null);
		}

	}

	@RabbitListener(id = "class-level", queues = "refunds")
	static class ClassLevelAsyncListener {

		@RabbitHandler
		CompletableFuture<Void> refund(String refund) {
			return CompletableFuture.completedFuture(null);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ErrorHandlers {

		static final ErrorHandler OWN = (throwable) -> {
		};

		@Bean
		SimpleRabbitListenerContainerFactory ownFactory(ConnectionFactory connectionFactory) {
			SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
			factory.setConnectionFactory(connectionFactory);
			factory.setErrorHandler(OWN);
			factory.setAutoStartup(false);
			return factory;
		}

		@Bean
		ErrorHandlerListeners errorHandlerListeners() {
			return new ErrorHandlerListeners();
		}

	}

	static class ErrorHandlerListeners {

		@RabbitListener(id = "own-error-handler", queues = "payments", containerFactory = "ownFactory")
		void withItsOwn(String payment) {
		}

		@RabbitListener(id = "default-error-handler", queues = "refunds")
		void withTheDefault(String refund) {
		}

	}

	private static Runnable listenerInProgress(Advice[] chain) {
		return proxy(() -> {
			throw new IdempotencyInProgressException("op", "k", Duration.ofSeconds(30));
		}, chain);
	}

	private static Runnable proxy(Runnable target, Advice[] chain) {
		ProxyFactory factory = new ProxyFactory(target);
		for (Advice advice : chain) {
			factory.addAdvice(advice);
		}
		return (Runnable) factory.getProxy();
	}

}
