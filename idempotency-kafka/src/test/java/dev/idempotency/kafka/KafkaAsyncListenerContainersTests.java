package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;
import org.springframework.aop.support.AopUtils;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.config.MethodKafkaListenerEndpoint;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.DelegatingMessageListener;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.adapter.AsyncRepliesAware;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.AsyncAnnotationAdvisor;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link KafkaAsyncListenerContainers}: which containers of a proxied factory
 * get a listener that reports itself synchronous (only those whose asynchronous results
 * the advisor awaits), and what acknowledgment it hands on. How such a container then
 * commits is tested on a real broker ({@code IdempotentKafkaBatchListenerTests},
 * {@code IdempotentKafkaTransactionalListenerTests}).
 */
class KafkaAsyncListenerContainersTests {

	// As the auto-proxy creator leaves a listener bean: advised, by subclass
	private final Listener listener = advised(new Listener());

	@Test
	void containerOfAnAsynchronousListenerGetsItAsSynchronous() {
		Object listener = create(factory(), "future", false).getContainerProperties().getMessageListener();
		assertThat(listener).isInstanceOf(MessageListener.class);
		assertThat(((AsyncRepliesAware) listener).isAsyncReplies()).isFalse();
		// The adapter underneath still handles the (completed) result as spring-kafka
		// does
		Object adapter = ((DelegatingMessageListener<?>) listener).getDelegate();
		assertThat(((AsyncRepliesAware) adapter).isAsyncReplies()).isTrue();
	}

	@Test
	void containerOfAnAsynchronousBatchListenerGetsItAsSynchronous() {
		Object listener = create(factory(), "batch", true).getContainerProperties().getMessageListener();
		assertThat(listener).isInstanceOf(BatchMessageListener.class);
		assertThat(((AsyncRepliesAware) listener).isAsyncReplies()).isFalse();
	}

	@Test
	void containerOfASynchronousListenerIsLeftAlone() {
		Object listener = create(factory(), "value", false).getContainerProperties().getMessageListener();
		assertThat(listener).isNotInstanceOf(DelegatingMessageListener.class);
	}

	@Test
	void containerOfAListenerWhoseResultIsNotAwaitedIsLeftAlone() {
		Object listener = create(factory(), new Listener(), "future", false).getContainerProperties()
			.getMessageListener();
		assertThat(((AsyncRepliesAware) listener).isAsyncReplies()).isTrue();
		assertThat(listener).isNotInstanceOf(DelegatingMessageListener.class);
	}

	// @Async adds its advisor before the existing ones: the method returns at once, its
	// future incomplete, and our wait runs on the executor's thread, where it does not
	// wait. Taken as synchronous, the container would commit the record before its work
	// completes
	@Test
	void containerOfAListenerWhoseResultAnAdvisorBeforeOursHandsOnIsLeftAlone() {
		Listener listener = advised(new Listener());
		((Advised) listener).addAdvisor(0, new AsyncAnnotationAdvisor());
		Object container = create(factory(), listener, "executed", false).getContainerProperties().getMessageListener();
		assertThat(((AsyncRepliesAware) container).isAsyncReplies()).isTrue();
		assertThat(container).isNotInstanceOf(DelegatingMessageListener.class);
	}

	// A proxy by subclass cannot intercept a final method: its result is not awaited
	@Test
	void containerOfAFinalListenerMethodIsLeftAlone() {
		Object listener = create(factory(), "unadvised", false).getContainerProperties().getMessageListener();
		assertThat(((AsyncRepliesAware) listener).isAsyncReplies()).isTrue();
		assertThat(listener).isNotInstanceOf(DelegatingMessageListener.class);
	}

	// AspectJ auto-proxying puts this interceptor first: it hands the result on as it is
	@Test
	void containerOfAListenerWhoseInvocationIsExposedGetsItAsSynchronous() {
		Listener listener = advised(new Listener());
		((Advised) listener).addAdvisor(0, ExposeInvocationInterceptor.ADVISOR);
		Object container = create(factory(), listener, "future", false).getContainerProperties().getMessageListener();
		assertThat(((AsyncRepliesAware) container).isAsyncReplies()).isFalse();
	}

	@Test
	void containerToldToCommitOutOfOrderIsLeftAlone() {
		ConcurrentKafkaListenerContainerFactory<String, String> factory = factory();
		factory.getContainerProperties().setAsyncAcks(true);
		Object listener = create(factory, "future", false).getContainerProperties().getMessageListener();
		assertThat(((AsyncRepliesAware) listener).isAsyncReplies()).isTrue();
		assertThat(listener).isNotInstanceOf(DelegatingMessageListener.class);
	}

	@Test
	void finalFactoryIsLeftAsItIs() {
		FinalFactory factory = new FinalFactory();
		assertThat(new KafkaAsyncListenerContainers().postProcessAfterInitialization(factory, "factory"))
			.isSameAs(factory);
	}

	@Test
	void factoryKeepsItsType() {
		ConcurrentKafkaListenerContainerFactory<String, String> factory = plainFactory();
		Object processed = new KafkaAsyncListenerContainers().postProcessAfterInitialization(factory, "factory");
		// A proxy of it, not another factory
		assertThat(processed).isInstanceOf(ConcurrentKafkaListenerContainerFactory.class)
			.isNotSameAs(factory)
			.isInstanceOf(Advised.class);
		assertThat(AopUtils.getTargetClass(processed)).isEqualTo(ConcurrentKafkaListenerContainerFactory.class);
	}

	@Test
	void acknowledgmentIsTheContainersInAManualAckMode() {
		AtomicInteger acks = new AtomicInteger();
		Acknowledgment container = new Acknowledgment() {

			@Override
			public void acknowledge() {
				acks.incrementAndGet();
			}

			@Override
			public void nack(Duration sleep) {
				acks.addAndGet(10);
			}

		};
		AwaitedAcknowledgment acknowledgment = new AwaitedAcknowledgment(container);
		acknowledgment.acknowledge();
		acknowledgment.nack(Duration.ZERO);
		assertThat(acks).hasValue(11);
		// Read by spring-kafka's adapter only, which would otherwise warn on every record
		assertThat(acknowledgment.isOutOfOrderCommit()).isTrue();
	}

	@Test
	void acknowledgmentWithoutAManualAckModeLeavesTheCommitToTheContainer() {
		AwaitedAcknowledgment acknowledgment = new AwaitedAcknowledgment(null);
		acknowledgment.acknowledge();
		assertThatIllegalStateException().isThrownBy(() -> acknowledgment.nack(Duration.ZERO))
			.withMessageContaining("MANUAL");
	}

	@SuppressWarnings("unchecked")
	private static ConcurrentKafkaListenerContainerFactory<String, String> factory() {
		return (ConcurrentKafkaListenerContainerFactory<String, String>) new KafkaAsyncListenerContainers()
			.postProcessAfterInitialization(plainFactory(), "kafkaListenerContainerFactory");
	}

	private static ConcurrentKafkaListenerContainerFactory<String, String> plainFactory() {
		ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
		factory.setConsumerFactory(new DefaultKafkaConsumerFactory<>(Map.of()));
		return factory;
	}

	private static Listener advised(Listener listener) {
		ProxyFactory proxies = new ProxyFactory(listener);
		proxies.setProxyTargetClass(true);
		proxies.addAdvisor(new KafkaAsyncListenerAdvisor());
		return (Listener) proxies.getProxy();
	}

	private ConcurrentMessageListenerContainer<String, String> create(
			ConcurrentKafkaListenerContainerFactory<String, String> factory, String method, boolean batch) {
		return create(factory, this.listener, method, batch);
	}

	private static ConcurrentMessageListenerContainer<String, String> create(
			ConcurrentKafkaListenerContainerFactory<String, String> factory, Listener listener, String method,
			boolean batch) {
		DefaultMessageHandlerMethodFactory handlerMethods = new DefaultMessageHandlerMethodFactory();
		handlerMethods.afterPropertiesSet();
		MethodKafkaListenerEndpoint<String, String> endpoint = new MethodKafkaListenerEndpoint<>();
		endpoint.setId(method);
		endpoint.setTopics("payments");
		endpoint.setBean(listener);
		endpoint.setMethod(ReflectionUtils.findMethod(Listener.class, method, batch ? List.class : String.class));
		endpoint.setMessageHandlerMethodFactory(handlerMethods);
		endpoint.setBatchListener(batch);
		return factory.createListenerContainer(endpoint);
	}

	static final class FinalFactory extends ConcurrentKafkaListenerContainerFactory<String, String> {

	}

	static class Listener {

		@KafkaListener(topics = "payments")
		public CompletableFuture<Void> future(String payment) {
			return CompletableFuture.completedFuture(null);
		}

		@KafkaListener(topics = "payments", batch = "true")
		public CompletableFuture<Void> batch(List<ConsumerRecord<String, String>> payments) {
			return CompletableFuture.completedFuture(null);
		}

		@KafkaListener(topics = "payments")
		public void value(String payment) {
		}

		@KafkaListener(topics = "payments")
		@Async
		public CompletableFuture<Void> executed(String payment) {
			return CompletableFuture.completedFuture(null);
		}

		@KafkaListener(topics = "payments")
		public final CompletableFuture<Void> unadvised(String payment) {
			return CompletableFuture.completedFuture(null);
		}

	}

}
