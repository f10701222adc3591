package dev.idempotency.autoconfigure.amqp;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.rabbitmq.client.Channel;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Declarable;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.annotation.RabbitListenerConfigurer;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.MethodRabbitListenerEndpoint;
import org.springframework.amqp.rabbit.listener.adapter.MessagingMessageListenerAdapter;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.amqp.autoconfigure.SimpleRabbitListenerContainerFactoryConfigurer;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What an application sets up on a listener container factory or an endpoint, on a real
 * RabbitMQ and a real Redis: the advice chain a {@code ContainerCustomizer} gives a
 * container (a retry, tracing) is kept, with the rules around it, and an endpoint's own
 * {@code AdapterProvider} is left in place, its adapter handed the listener's
 * asynchronous results through the rules. Before, the factory's chain replaced the
 * customizer's, and the starter's adapter the application's (and, once that was left in
 * place, Spring AMQP dead-lettered a copy of a key in progress on it).
 */
@SpringBootTest(classes = RabbitListenerCustomizationTests.TestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "idempotency.lock-timeout=30s",
				"idempotency.messaging.in-progress-retry.initial-interval=50ms",
				"idempotency.messaging.in-progress-retry.max-interval=200ms",
				"spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false" })
@DirtiesContext
class RabbitListenerCustomizationTests {

	private static final String QUEUES = "idempotency-customization-" + UUID.randomUUID();

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	@Autowired
	private RabbitTemplate rabbit;

	@Autowired
	private RabbitAdmin admin;

	@Autowired
	private Work work;

	@Autowired
	private TracingRetry tracingRetry;

	@Autowired
	private CountingAdapters adapters;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		for (String property : TestRabbit.get().properties()) {
			String[] pair = property.split("=", 2);
			registry.add(pair[0], () -> pair[1]);
		}
		registry.add("spring.data.redis.host", () -> TestRedis.get().host());
		registry.add("spring.data.redis.port", () -> TestRedis.get().port());
		registry.add("idempotency.key-prefix", () -> QUEUES + ":");
		registry.add("test.queues", () -> QUEUES);
	}

	@Test
	void customizersRetryRetriesTheListenersOwnFailure() {
		String id = UUID.randomUUID().toString();
		this.work.failOnce(id);
		send("customized", new Event(id, 1));
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completed(id)).isOne());
		assertThat(this.work.attempts(id)).isEqualTo(2);
		assertThat(this.tracingRetry.traced(id)).isOne();
		assertThat(this.work.effects(id)).isOne();
		assertThat(readyMessages("customized.dlq")).isZero();
	}

	@Test
	void reusedKeyIsDeadLetteredPastTheCustomizersRetryWithoutRetries() {
		String id = UUID.randomUUID().toString();
		send("customized", new Event(id, 1));
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completed(id)).isOne());
		send("customized", new Event(id, 2));
		assertThat(this.rabbit.receive(QUEUES + ".customized.dlq", DEADLINE.toMillis())).isNotNull();
		assertThat(this.work.attempts(id)).isEqualTo(2);
		assertThat(this.tracingRetry.traced(id)).isEqualTo(2);
		assertThat(this.work.effects(id)).isOne();
	}

	@Test
	void copyOfAKeyInProgressIsRequeuedToTheTailUnderTheCustomizersChain() {
		String id = UUID.randomUUID().toString();
		CountDownLatch release = this.work.hold(id);
		try {
			send("customized", new Event(id, 1));
			await().atMost(DEADLINE).until(() -> this.work.effects(id) == 1);
			send("customized", new Event(id, 1));
			await().atMost(DEADLINE).until(() -> this.work.requeuedToTail(id));
		}
		finally {
			release.countDown();
		}
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completed(id)).isEqualTo(2));
		assertThat(this.work.effects(id)).isOne();
		assertThat(readyMessages("customized.dlq")).isZero();
	}

	@Test
	void endpointsOwnAdapterProviderIsKept() {
		String id = UUID.randomUUID().toString();
		send("provided", new Event(id, 1));
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completed(id)).isOne());
		assertThat(this.adapters.handled()).isPositive();
	}

	@Test
	void copyOfAKeyInProgressOnAnEndpointWithItsOwnAdapterIsRequeuedNotDeadLettered() {
		String id = UUID.randomUUID().toString();
		CountDownLatch release = this.work.hold(id);
		try {
			send("provided", new Event(id, 1));
			await().atMost(DEADLINE).until(() -> this.work.effects(id) == 1);
			int handled = this.adapters.handled();
			send("provided", new Event(id, 1));
			await().atMost(DEADLINE).until(() -> this.adapters.handled() >= handled + 3);
			assertThat(readyMessages("provided.dlq")).isZero();
		}
		finally {
			release.countDown();
		}
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completed(id)).isEqualTo(2));
		assertThat(this.work.effects(id)).isOne();
		assertThat(readyMessages("provided.dlq")).isZero();
	}

	private void send(String queue, Event event) {
		this.rabbit.convertAndSend("", QUEUES + "." + queue, event);
	}

	private long readyMessages(String queue) {
		return this.admin.getQueueInfo(QUEUES + "." + queue).getMessageCount();
	}

	record Event(String id, int amount) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ Work.class, Listeners.class, TracingRetry.class, CountingAdapters.class })
	static class TestApplication {

		@Bean
		JacksonJsonMessageConverter messageConverter() {
			JacksonJsonMessageConverter converter = new JacksonJsonMessageConverter();
			converter.setAlwaysConvertToInferredType(true);
			return converter;
		}

		@Bean
		Declarables queues(@Value("${test.queues}") String prefix) {
			List<Declarable> declarables = new java.util.ArrayList<>();
			for (String name : List.of("customized", "provided")) {
				String queue = prefix + "." + name;
				declarables.add(QueueBuilder.nonDurable(queue)
					.deadLetterExchange("")
					.deadLetterRoutingKey(queue + ".dlq")
					.expires(600_000)
					.build());
				declarables.add(QueueBuilder.nonDurable(queue + ".dlq").expires(600_000).build());
			}
			return new Declarables(declarables);
		}

		@Bean
		SimpleRabbitListenerContainerFactory customizedFactory(
				SimpleRabbitListenerContainerFactoryConfigurer configurer, ConnectionFactory connectionFactory,
				TracingRetry tracingRetry) {
			SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
			configurer.configure(factory, connectionFactory);
			factory.setContainerCustomizer((container) -> container.setAdviceChain(tracingRetry));
			return factory;
		}

		// An endpoint registered by the application, with an adapter of its own
		@Bean
		RabbitListenerConfigurer providedEndpoint(@Value("${test.queues}") String prefix, Listeners listeners,
				CountingAdapters adapters, BeanFactory beanFactory) {
			return (registrar) -> {
				Method method = ReflectionUtils.findMethod(Listeners.class, "provided", Event.class);
				DefaultMessageHandlerMethodFactory handlerMethods = new DefaultMessageHandlerMethodFactory();
				handlerMethods.setBeanFactory(beanFactory);
				handlerMethods.afterPropertiesSet();
				MethodRabbitListenerEndpoint endpoint = new MethodRabbitListenerEndpoint();
				endpoint.setId("provided");
				endpoint.setQueueNames(prefix + ".provided");
				// With prefetch 1, a consumer takes no copy while its first message runs
				endpoint.setConcurrency("2");
				endpoint.setBean(listeners);
				endpoint.setMethod(method);
				endpoint.setMessageHandlerMethodFactory(handlerMethods);
				endpoint.setAdapterProvider(adapters);
				registrar.registerEndpoint(endpoint);
			};
		}

	}

	// The application's advice: traces each message and retries its transient failures
	static class TracingRetry implements MethodInterceptor {

		private final Counts traced = new Counts();

		@Override
		public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
			Object data = invocation.getArguments()[1];
			if (data instanceof Message message) {
				String body = new String(message.getBody(), StandardCharsets.UTF_8);
				this.traced.add(body.replaceAll(".*\"id\":\"([^\"]+)\".*", "$1"));
			}
			for (int attempt = 1;; attempt++) {
				try {
					return invocation.proceed();
				}
				catch (Exception ex) {
					if (attempt == 3) {
						throw ex;
					}
				}
			}
		}

		int traced(String id) {
			return this.traced.get(id);
		}

	}

	static class CountingAdapters implements MethodRabbitListenerEndpoint.AdapterProvider {

		private final AtomicInteger handled = new AtomicInteger();

		@Override
		public MessagingMessageListenerAdapter getAdapter(boolean batch, @Nullable Object bean, @Nullable Method method,
				boolean returnExceptions,
				org.springframework.amqp.rabbit.listener.api.@Nullable RabbitListenerErrorHandler errorHandler,
				org.springframework.amqp.rabbit.batch.@Nullable BatchingStrategy batchingStrategy) {
			return new MessagingMessageListenerAdapter(bean, method, returnExceptions, errorHandler) {

				@Override
				public void onMessage(Message message, @Nullable Channel channel) throws Exception {
					CountingAdapters.this.handled.incrementAndGet();
					super.onMessage(message, channel);
				}

			};
		}

		int handled() {
			return this.handled.get();
		}

	}

	static class Work {

		// Not the common pool: a held call would take its only thread on two cores
		private final ExecutorService executor = Executors.newCachedThreadPool();

		private final Counts effects = new Counts();

		private final Counts attempts = new Counts();

		private final Counts completed = new Counts();

		private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

		private final Map<String, Boolean> failOnce = new ConcurrentHashMap<>();

		private final Map<String, Boolean> requeuedToTail = new ConcurrentHashMap<>();

		CountDownLatch hold(String id) {
			return this.held.computeIfAbsent(id, (k) -> new CountDownLatch(1));
		}

		void failOnce(String id) {
			this.failOnce.put(id, true);
		}

		@Idempotent(name = "rabbit.customization", key = "#event.id", payload = "#event")
		public String charge(Event event) {
			this.effects.add(event.id());
			CountDownLatch latch = this.held.get(event.id());
			if (latch != null) {
				try {
					assertThat(latch.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}
			return "receipt-" + event.id();
		}

		@Idempotent(name = "rabbit.customization-async", key = "#event.id", payload = "#event")
		public CompletableFuture<String> chargeAsync(Event event) {
			return CompletableFuture.supplyAsync(() -> charge(event), this.executor);
		}

		void attempted(Event event, Message message) {
			this.attempts.add(event.id());
			if (message.getMessageProperties().getHeaders().containsKey("x-idempotency-requeues")) {
				this.requeuedToTail.put(event.id(), true);
			}
			if (this.failOnce.remove(event.id()) != null) {
				throw new IllegalStateException("A transient failure of the listener's own");
			}
		}

		void completedOne(String id) {
			this.completed.add(id);
		}

		int effects(String id) {
			return this.effects.get(id);
		}

		int attempts(String id) {
			return this.attempts.get(id);
		}

		int completed(String id) {
			return this.completed.get(id);
		}

		boolean requeuedToTail(String id) {
			return this.requeuedToTail.containsKey(id);
		}

	}

	static class Listeners {

		private final Work work;

		Listeners(Work work) {
			this.work = work;
		}

		@RabbitListener(queues = "${test.queues}.customized", containerFactory = "customizedFactory", concurrency = "2")
		void customized(Event event, Message message) {
			this.work.attempted(event, message);
			this.work.charge(event);
			this.work.completedOne(event.id());
		}

		public CompletableFuture<Void> provided(Event event) {
			return this.work.chargeAsync(event).thenAccept((receipt) -> this.work.completedOne(event.id()));
		}

	}

}
