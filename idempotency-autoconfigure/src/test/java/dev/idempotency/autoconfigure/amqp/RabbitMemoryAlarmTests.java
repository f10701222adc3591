package dev.idempotency.autoconfigure.amqp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * A broker that blocks publishers (its memory alarm, raised by the test on a RabbitMQ of
 * its own) while copies of a key in progress are requeued to the tail of their queue: the
 * copies are published on the publisher connection, so the consumers' connection, which
 * the broker keeps reading from, goes on consuming other messages; the held key still has
 * one effect, and no message is lost.
 */
@SpringBootTest(classes = RabbitMemoryAlarmTests.TestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "idempotency.lock-timeout=60s",
				"idempotency.messaging.in-progress-retry.initial-interval=100ms",
				"idempotency.messaging.in-progress-retry.max-interval=200ms",
				"spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false" })
@DirtiesContext
class RabbitMemoryAlarmTests {

	private static final String PREFIX = "idempotency-alarm-" + UUID.randomUUID();

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private static final Duration WHILE_ALARMED = Duration.ofSeconds(10);

	private static OwnRabbit broker;

	@Autowired
	private RabbitTemplate rabbit;

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
	void otherMessagesFlowOnTheConsumersConnectionWhileTheBrokerBlocksPublishers() {
		String key = UUID.randomUUID().toString();
		CountDownLatch release = this.work.hold(key);
		List<String> others = new ArrayList<>();
		try {
			this.rabbit.convertAndSend("", "held", key);
			await().atMost(DEADLINE).until(() -> this.work.effects(key) == 1);
			this.rabbit.convertAndSend("", "held", key);
			// The copy circulates: delivered, held, requeued to the tail, delivered again
			await().atMost(DEADLINE).until(() -> this.work.deliveries(key) >= 3);
			for (int i = 0; i < 20; i++) {
				String id = UUID.randomUUID().toString();
				others.add(id);
				this.rabbit.convertAndSend("", "others", id);
			}
			broker.rabbitmqctl("set_vm_memory_high_watermark", "0");
			long alarmed = System.nanoTime();
			// A connection is blocked once it publishes under the alarm: that of a copy
			await().atMost(DEADLINE).until(() -> broker.rabbitmqctl("list_connections", "state").contains("blocked"));
			// Not on this thread: a container waits a minute for consumers that cannot
			// start
			CompletableFuture.runAsync(this.registry.getListenerContainer("others")::start);
			await().atMost(WHILE_ALARMED)
				.untilAsserted(() -> assertThat(others).allMatch((id) -> this.work.consumptions(id) >= 1));
			System.err.printf("20 other messages were consumed %d ms after the memory alarm was raised%n",
					Duration.ofNanos(System.nanoTime() - alarmed).toMillis());
			// Requeued at the head meanwhile, not published on the connection the broker
			// said it blocks, which would hold each copy for the whole confirm timeout (5
			// s; the first copy under the alarm waits for it)
			int deliveries = this.work.deliveries(key);
			await().atMost(Duration.ofSeconds(20)).until(() -> this.work.deliveries(key) >= deliveries + 5);
			assertThat(broker.rabbitmqctl("eval", "rabbit_alarm:get_alarms().")).contains("memory");
		}
		finally {
			broker.rabbitmqctl("set_vm_memory_high_watermark", "0.4");
			release.countDown();
		}
		// A copy unconfirmed under the alarm may have been queued as well as requeued:
		// replayed twice then, but never run twice
		await().atMost(DEADLINE).untilAsserted(() -> {
			assertThat(this.work.deliveries(key)).isGreaterThanOrEqualTo(2);
			assertThat(this.work.effects(key)).isOne();
			assertThat(this.work.completions(key)).isGreaterThanOrEqualTo(2);
			assertThat(readyMessages("held")).isZero();
			assertThat(this.admin.getQueueInfo("held").getConsumerCount()).isPositive();
		});
		assertThat(others).allMatch((id) -> this.work.consumptions(id) >= 1);
		assertThat(readyMessages("others")).isZero();
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
			return new Declarables(
					QueueBuilder.nonDurable("held").deadLetterExchange("").deadLetterRoutingKey("held.dlq").build(),
					QueueBuilder.nonDurable("held.dlq").build(), QueueBuilder.nonDurable("others").build());
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

		private final Counts consumed = new Counts();

		private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

		CountDownLatch hold(String id) {
			return this.held.computeIfAbsent(id, (k) -> new CountDownLatch(1));
		}

		@Idempotent(name = "rabbit.alarm", key = "#id")
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

		void consumed(String id) {
			this.consumed.add(id);
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

		int consumptions(String id) {
			return this.consumed.get(id);
		}

	}

	static class Listeners {

		private final Work work;

		Listeners(Work work) {
			this.work = work;
		}

		@RabbitListener(queues = "held", concurrency = "3")
		void held(String id) {
			this.work.delivered(id);
			this.work.charge(id);
			this.work.completed(id);
		}

		// Started once the broker blocks publishers, on the consumers' connection
		@RabbitListener(id = "others", queues = "others", autoStartup = "false")
		void other(String id) {
			this.work.consumed(id);
		}

	}

}
