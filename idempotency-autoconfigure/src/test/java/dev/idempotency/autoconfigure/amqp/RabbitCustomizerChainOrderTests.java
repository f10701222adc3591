package dev.idempotency.autoconfigure.amqp;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.RetryInterceptorBuilder;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.retry.RepublishMessageRecoverer;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.amqp.autoconfigure.SimpleRabbitListenerContainerFactoryConfigurer;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener container factory that cannot be proxied by class, configured in place,
 * whose {@code ContainerCustomizer} gives its containers an advice chain of the
 * application's (tracing), on a real RabbitMQ and a real Redis: the rules still hold
 * around that chain, so a copy of a key in progress is requeued, not dead-lettered.
 * Before, only a proxied factory put the rules around a customizer's chain; the
 * customizer of a factory configured in place replaced the chain with the rules, and the
 * copy met {@code default-requeue-rejected=false}.
 */
@SpringBootTest(classes = RabbitCustomizerChainOrderTests.TestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "idempotency.lock-timeout=30s",
				"idempotency.messaging.in-progress-retry.initial-interval=50ms",
				"idempotency.messaging.in-progress-retry.max-interval=200ms",
				"spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false" })
@DirtiesContext
class RabbitCustomizerChainOrderTests {

	private static final String QUEUES = "idempotency-chain-order-" + UUID.randomUUID();

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	@Autowired
	private RabbitTemplate rabbit;

	@Autowired
	private RabbitAdmin admin;

	@Autowired
	private Work work;

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
	void copyOfAKeyInProgressIsRequeuedUnderTheCustomizersChain() {
		String id = UUID.randomUUID().toString();
		CountDownLatch release = this.work.hold(id);
		try {
			send(new Event(id, 1));
			await().atMost(DEADLINE).until(() -> this.work.effects(id) == 1);
			send(new Event(id, 1));
			// The copy reached the listener, on the other consumer, and met the key in
			// progress
			await().atMost(DEADLINE).until(() -> this.work.attempts(id) >= 2);
		}
		finally {
			release.countDown();
		}
		await().atMost(DEADLINE).until(() -> this.work.completed(id) == 2 || republished() > 0);
		assertThat(republished()).isZero();
		assertThat(this.work.completed(id)).isEqualTo(2);
		assertThat(this.work.effects(id)).isOne();
	}

	@Test
	void customizersRetryStillRecoversTheListenersOwnFailure() {
		String id = UUID.randomUUID().toString();
		this.work.failAlways(id);
		send(new Event(id, 1));
		// The recovered message of this test's key, past any another test left
		await().atMost(DEADLINE).until(() -> {
			Message recovered = this.rabbit.receive(QUEUES + ".ordered.errors", 1000);
			return recovered != null && new String(recovered.getBody(), StandardCharsets.UTF_8).contains(id);
		});
		assertThat(this.work.attempts(id)).isEqualTo(3);
		assertThat(this.work.effects(id)).isZero();
	}

	private long republished() {
		return this.admin.getQueueInfo(QUEUES + ".ordered.errors").getMessageCount();
	}

	private void send(Event event) {
		this.rabbit.convertAndSend("", QUEUES + ".ordered", event);
	}

	record Event(String id, int amount) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ Work.class, Listeners.class })
	static class TestApplication {

		@Bean
		JacksonJsonMessageConverter messageConverter() {
			JacksonJsonMessageConverter converter = new JacksonJsonMessageConverter();
			converter.setAlwaysConvertToInferredType(true);
			return converter;
		}

		@Bean
		Declarables queues(@Value("${test.queues}") String prefix) {
			String queue = prefix + ".ordered";
			return new Declarables(List.of(QueueBuilder.nonDurable(queue).expires(600_000).build(),
					QueueBuilder.nonDurable(queue + ".errors").expires(600_000).build()));
		}

		// The customizer keeps the factory's chain, as it is when the container is
		// created, and adds its retry after it
		@Bean
		SimpleRabbitListenerContainerFactory orderedFactory(SimpleRabbitListenerContainerFactoryConfigurer configurer,
				ConnectionFactory connectionFactory, RabbitTemplate template, @Value("${test.queues}") String prefix) {
			SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
			configurer.configure(factory, connectionFactory);
			MethodInterceptor retry = RetryInterceptorBuilder.stateless()
				.maxRetries(2)
				.backOffOptions(10, 1.0, 10)
				.recoverer(new RepublishMessageRecoverer(template, "", prefix + ".ordered.errors"))
				.build();
			factory.setContainerCustomizer((container) -> {
				Advice[] chain = factory.getAdviceChain();
				List<Advice> advice = new ArrayList<>((chain != null) ? Arrays.asList(chain) : List.of());
				advice.add(retry);
				container.setAdviceChain(advice.toArray(new Advice[0]));
			});
			return factory;
		}

	}

	static class Work {

		private final Counts effects = new Counts();

		private final Counts attempts = new Counts();

		private final Counts completed = new Counts();

		private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

		private final Map<String, Boolean> failAlways = new ConcurrentHashMap<>();

		void failAlways(String id) {
			this.failAlways.put(id, true);
		}

		CountDownLatch hold(String id) {
			return this.held.computeIfAbsent(id, (k) -> new CountDownLatch(1));
		}

		@Idempotent(name = "rabbit.chain-order", key = "#event.id", payload = "#event")
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

		void attempted(String id) {
			this.attempts.add(id);
			if (this.failAlways.containsKey(id)) {
				throw new IllegalStateException("A failure of the listener's own");
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

	}

	static class Listeners {

		private final Work work;

		Listeners(Work work) {
			this.work = work;
		}

		// With prefetch 1, a consumer takes no copy while its first message runs
		@RabbitListener(queues = "${test.queues}.ordered", containerFactory = "orderedFactory", concurrency = "2")
		void ordered(Event event) {
			this.work.attempted(event.id());
			this.work.charge(event);
			this.work.completedOne(event.id());
		}

	}

}
