package dev.idempotency.autoconfigure.amqp;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
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
 * A publisher connection the broker blocked (its memory alarm, on a RabbitMQ of this
 * class's own) before the first copy of a key in progress was requeued to the tail: the
 * application's own publishing on it ({@code RabbitTemplate.setUsePublisherConnection})
 * met the alarm first. The broker says so once, when it blocks the connection; the copies
 * must know it, and be requeued at the head at once, not each be published and waited for
 * the whole confirm timeout (5 s) while the consumer holds it.
 */
@SpringBootTest(classes = RabbitBlockedBeforeFirstCopyTests.TestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "idempotency.lock-timeout=60s",
				"idempotency.messaging.in-progress-retry.initial-interval=100ms",
				"idempotency.messaging.in-progress-retry.max-interval=200ms",
				"spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false" })
@DirtiesContext
class RabbitBlockedBeforeFirstCopyTests {

	private static final String PREFIX = "idempotency-blocked-" + UUID.randomUUID();

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	// Six deliveries take about 1 s when requeued at the head, and more than 25 s when
	// each copy waits for the confirm timeout
	private static final int DELIVERIES = 6;

	private static final Duration WHILE_ALARMED = Duration.ofSeconds(15);

	private static OwnRabbit broker;

	@Autowired
	private RabbitTemplate rabbit;

	@Autowired
	private ConnectionFactory connectionFactory;

	@Autowired
	private RabbitAdmin admin;

	@Autowired
	private RabbitListenerEndpointRegistry registry;

	@Autowired
	private Work work;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		broker = OwnRabbit.start();
		for (String property : broker.properties()) {
			String[] pair = property.split("=", 2);
			registry.add(pair[0], () -> pair[1]);
		}
		registry.add("spring.data.redis.host", () -> TestRedis.get().host());
		registry.add("spring.data.redis.port", () -> TestRedis.get().port());
		registry.add("idempotency.key-prefix", () -> PREFIX + ":");
	}

	@Test
	void copiesAreRequeuedAtTheHeadAtOnceOnAPublisherConnectionBlockedBeforeTheFirstCopy() {
		String key = UUID.randomUUID().toString();
		CountDownLatch release = this.work.hold(key);
		RabbitTemplate application = new RabbitTemplate(this.connectionFactory);
		application.setUsePublisherConnection(true);
		try {
			this.rabbit.convertAndSend("", "first", key);
			await().atMost(DEADLINE).until(() -> this.work.effects(key) == 1);
			// Queued, for a listener that starts under the alarm: no copy before it
			this.rabbit.convertAndSend("", "held", key);
			await().atMost(DEADLINE).until(() -> readyMessages("held") == 1);
			broker.rabbitmqctl("set_vm_memory_high_watermark", "0");
			await().atMost(DEADLINE)
				.until(() -> broker.rabbitmqctl("eval", "rabbit_alarm:get_alarms().").contains("memory"));
			application.convertAndSend("", "sink", "published by the application under the alarm");
			await().atMost(DEADLINE).until(() -> broker.rabbitmqctl("list_connections", "state").contains("blocked"));
			// Not on this thread: a container waits a minute for consumers that cannot
			// start
			CompletableFuture.runAsync(this.registry.getListenerContainer("held")::start);
			await().atMost(WHILE_ALARMED).until(() -> this.work.deliveries(key) >= DELIVERIES);
		}
		finally {
			broker.rabbitmqctl("set_vm_memory_high_watermark", "0.4");
			release.countDown();
		}
		await().atMost(DEADLINE).untilAsserted(() -> {
			assertThat(this.work.completions(key)).isPositive();
			assertThat(readyMessages("held")).isZero();
		});
		assertThat(readyMessages("held.dlq")).isZero();
		assertThat(this.work.effects(key)).isOne();
	}

	private long readyMessages(String queue) {
		return this.admin.getQueueInfo(queue).getMessageCount();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ Work.class, Listeners.class })
	static class TestApplication {

		@Bean
		JacksonJsonMessageConverter messageConverter() {
			return new JacksonJsonMessageConverter();
		}

		@Bean
		Declarables queues() {
			return new Declarables(QueueBuilder.nonDurable("first").build(),
					QueueBuilder.nonDurable("held").deadLetterExchange("").deadLetterRoutingKey("held.dlq").build(),
					QueueBuilder.nonDurable("held.dlq").build(), QueueBuilder.nonDurable("sink").build());
		}

		// Stops the broker of this class when its context closes, after the containers
		// stopped, so that nothing keeps reconnecting to it
		@Bean
		DisposableBean ownRabbitStop() {
			return () -> broker.stop();
		}

	}

	static class Work {

		private final Counts effects = new Counts();

		private final Counts deliveries = new Counts();

		private final Counts completed = new Counts();

		private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

		CountDownLatch hold(String id) {
			return this.held.computeIfAbsent(id, (k) -> new CountDownLatch(1));
		}

		@Idempotent(name = "rabbit.blocked", key = "#id")
		public String charge(String id) {
			this.effects.add(id);
			CountDownLatch latch = this.held.get(id);
			try {
				assertThat(latch.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			return "receipt-" + id;
		}

		// Methods, not fields: this bean is a proxy
		void delivered(String id) {
			this.deliveries.add(id);
		}

		void completed(String id) {
			this.completed.add(id);
		}

		int effects(String id) {
			return this.effects.get(id);
		}

		int deliveries(String id) {
			return this.deliveries.get(id);
		}

		int completions(String id) {
			return this.completed.get(id);
		}

	}

	static class Listeners {

		private final Work work;

		Listeners(Work work) {
			this.work = work;
		}

		@RabbitListener(queues = "first")
		void first(String id) {
			this.work.charge(id);
		}

		// Started once the broker blocked the publisher connection
		@RabbitListener(id = "held", queues = "held", autoStartup = "false")
		void held(String id) {
			this.work.delivered(id);
			this.work.charge(id);
			this.work.completed(id);
		}

	}

}
