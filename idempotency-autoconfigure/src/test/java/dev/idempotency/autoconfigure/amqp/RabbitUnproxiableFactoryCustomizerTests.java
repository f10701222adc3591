package dev.idempotency.autoconfigure.amqp;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.aop.support.AopUtils;
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
@SpringBootTest(classes = RabbitUnproxiableFactoryCustomizerTests.TestApplication.class,
		webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "idempotency.lock-timeout=30s",
				"idempotency.messaging.in-progress-retry.initial-interval=50ms",
				"idempotency.messaging.in-progress-retry.max-interval=200ms",
				"spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false" })
@DirtiesContext
class RabbitUnproxiableFactoryCustomizerTests {

	private static final String QUEUES = "idempotency-sealed-customized-" + UUID.randomUUID();

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	@Autowired
	private RabbitTemplate rabbit;

	@Autowired
	private RabbitAdmin admin;

	@Autowired
	private SealedFactory factory;

	@Autowired
	private Work work;

	@Autowired
	private Tracing tracing;

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
		assertThat(AopUtils.isAopProxy(this.factory)).isFalse();
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
		await().atMost(DEADLINE).until(() -> this.work.completed(id) == 2 || deadLettered() > 0);
		assertThat(deadLettered()).isZero();
		assertThat(this.work.completed(id)).isEqualTo(2);
		assertThat(this.work.effects(id)).isOne();
		assertThat(this.tracing.traced()).isGreaterThanOrEqualTo(2);
	}

	private long deadLettered() {
		return this.admin.getQueueInfo(QUEUES + ".sealed.dlq").getMessageCount();
	}

	private void send(Event event) {
		this.rabbit.convertAndSend("", QUEUES + ".sealed", event);
	}

	record Event(String id, int amount) {
	}

	static sealed class SealedFactory extends SimpleRabbitListenerContainerFactory permits OnlySubclass {

	}

	static final class OnlySubclass extends SealedFactory {

	}

	// The application's advice: counts the messages it sees
	static class Tracing implements MethodInterceptor {

		private final AtomicInteger traced = new AtomicInteger();

		@Override
		public Object invoke(org.aopalliance.intercept.MethodInvocation invocation) throws Throwable {
			this.traced.incrementAndGet();
			return invocation.proceed();
		}

		int traced() {
			return this.traced.get();
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ Work.class, Listeners.class, Tracing.class })
	static class TestApplication {

		@Bean
		JacksonJsonMessageConverter messageConverter() {
			JacksonJsonMessageConverter converter = new JacksonJsonMessageConverter();
			converter.setAlwaysConvertToInferredType(true);
			return converter;
		}

		@Bean
		Declarables queues(@Value("${test.queues}") String prefix) {
			String queue = prefix + ".sealed";
			return new Declarables(List.of(QueueBuilder.nonDurable(queue)
				.deadLetterExchange("")
				.deadLetterRoutingKey(queue + ".dlq")
				.expires(600_000)
				.build(), QueueBuilder.nonDurable(queue + ".dlq").expires(600_000).build()));
		}

		@Bean
		SealedFactory sealedFactory(SimpleRabbitListenerContainerFactoryConfigurer configurer,
				ConnectionFactory connectionFactory, Tracing tracing) {
			SealedFactory factory = new SealedFactory();
			configurer.configure(factory, connectionFactory);
			factory.setContainerCustomizer((container) -> container.setAdviceChain(tracing));
			return factory;
		}

	}

	static class Work {

		private final Counts effects = new Counts();

		private final Counts attempts = new Counts();

		private final Counts completed = new Counts();

		private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

		CountDownLatch hold(String id) {
			return this.held.computeIfAbsent(id, (k) -> new CountDownLatch(1));
		}

		@Idempotent(name = "rabbit.sealed-customized", key = "#event.id", payload = "#event")
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
		@RabbitListener(queues = "${test.queues}.sealed", containerFactory = "sealedFactory", concurrency = "2")
		void sealed(Event event) {
			this.work.attempted(event.id());
			this.work.charge(event);
			this.work.completedOne(event.id());
		}

	}

}
