package dev.idempotency.autoconfigure.amqp;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerEndpoint;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.adapter.MessageListenerAdapter;
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
 * Containers created from the listener container factory at run time, each of which
 * requeued a copy of a key in progress to the tail, then stopped and discarded, on a
 * RabbitMQ of this class's own (to count its channels): the confirm channels of the
 * copies are kept for every container of the publisher connection together, so the
 * channels of discarded containers are not left open on it, one more for each, until the
 * connection runs out of channels (and the application's own publishing on it fails).
 */
@SpringBootTest(classes = RabbitCopyChannelsTests.TestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "idempotency.lock-timeout=60s",
				"idempotency.messaging.in-progress-retry.initial-interval=20ms",
				"idempotency.messaging.in-progress-retry.max-interval=50ms",
				"spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false" })
@DirtiesContext
class RabbitCopyChannelsTests {

	private static final String PREFIX = "idempotency-copy-channels-" + UUID.randomUUID();

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private static final int CONTAINERS = 10;

	private static OwnRabbit broker;

	@Autowired
	private RabbitTemplate rabbit;

	@Autowired
	private RabbitAdmin admin;

	@Autowired
	private SimpleRabbitListenerContainerFactory factory;

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
	void discardedContainersLeaveNoConfirmChannelsOpen() {
		String key = UUID.randomUUID().toString();
		CountDownLatch release = this.work.hold(key);
		try {
			this.rabbit.convertAndSend("", "first", key);
			await().atMost(DEADLINE).until(() -> this.work.effects(key) == 1);
			requeueACopyToTheTailInANewContainer(key, 0);
			long channels = openChannels();
			for (int i = 1; i <= CONTAINERS; i++) {
				requeueACopyToTheTailInANewContainer(key, i);
			}
			// The containers' consumer channels are closed; the confirm channels of one
			// container at a time would do for all of them
			await().atMost(DEADLINE).untilAsserted(() -> assertThat(openChannels()).isLessThan(channels + 3));
		}
		finally {
			release.countDown();
		}
		assertThat(this.work.effects(key)).isOne();
	}

	private void requeueACopyToTheTailInANewContainer(String key, int index) {
		String queue = PREFIX + ".dynamic-" + index;
		Queue declared = QueueBuilder.nonDurable(queue).build();
		this.admin.declareQueue(declared);
		SimpleRabbitListenerEndpoint endpoint = new SimpleRabbitListenerEndpoint();
		endpoint.setId(queue);
		endpoint.setQueueNames(queue);
		endpoint.setMessageListener(new MessageListenerAdapter(new Object() {

			@SuppressWarnings("unused")
			public void handleMessage(String id) {
				RabbitCopyChannelsTests.this.work.delivered(queue);
				RabbitCopyChannelsTests.this.work.charge(id);
			}

		}, new JacksonJsonMessageConverter()));
		SimpleMessageListenerContainer container = this.factory.createListenerContainer(endpoint);
		container.afterPropertiesSet();
		container.start();
		try {
			this.rabbit.convertAndSend("", queue, key);
			// Delivered again: as a copy requeued to the tail, confirmed on a channel of
			// its own
			await().atMost(DEADLINE).until(() -> this.work.deliveries(queue) >= 2);
		}
		finally {
			container.stop();
			container.destroy();
			this.admin.deleteQueue(queue);
		}
	}

	private long openChannels() {
		return broker.rabbitmqctl("list_channels", "--quiet", "--no-table-headers", "number")
			.lines()
			.filter((line) -> !line.isBlank())
			.count();
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
		Queue first() {
			return QueueBuilder.nonDurable("first").build();
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

		private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

		CountDownLatch hold(String id) {
			return this.held.computeIfAbsent(id, (k) -> new CountDownLatch(1));
		}

		@Idempotent(name = "rabbit.copy-channels", key = "#id")
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
		void delivered(String queue) {
			this.deliveries.add(queue);
		}

		int effects(String id) {
			return this.effects.get(id);
		}

		int deliveries(String queue) {
			return this.deliveries.get(queue);
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

	}

}
