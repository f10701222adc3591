package dev.idempotency.autoconfigure.amqp;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
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
 * A store outage on a quorum queue with an {@code x-delivery-limit}, on a real RabbitMQ
 * and a real Redis: a message that meets the outage is requeued at growing intervals,
 * counted by the queue's {@code x-delivery-count}, so that it outlasts an outage of
 * several seconds without reaching the limit, for a listener that returns and for one
 * that returns a {@code CompletableFuture} alike, while another listener of the same
 * factory handles messages that need no store. Before, the count restarted with every
 * delivery of the asynchronous listener and with every message of the other listener, and
 * the message was dead-lettered within the outage.
 * <p>
 * The context is closed after the class, since a cached one left reconnecting to the
 * stopped Redis printed Lettuce stack traces that failed another class's logging test.
 */
@DirtiesContext
@SpringBootTest(classes = RabbitQuorumDeliveryLimitTests.TestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "idempotency.lock-timeout=10s",
				"idempotency.redis.command-timeout=200ms",
				"idempotency.messaging.in-progress-retry.initial-interval=100ms",
				"idempotency.messaging.in-progress-retry.multiplier=2",
				"idempotency.messaging.in-progress-retry.max-interval=5s", "spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false" })
class RabbitQuorumDeliveryLimitTests {

	private static final String QUEUES = "idempotency-quorum-" + UUID.randomUUID();

	private static final int DELIVERY_LIMIT = 10;

	// At 100 ms a delivery (plus the command timeout), the message would be returned
	// about 20 times; growing from 100 ms by 2, about 6
	private static final Duration OUTAGE = Duration.ofSeconds(6);

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private static final RedisServer redis = TestRedis.startPrivateServer();

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
		registry.add("spring.data.redis.url", redis::url);
		registry.add("idempotency.key-prefix", () -> QUEUES + ":");
		registry.add("test.queues", () -> QUEUES);
	}

	@AfterAll
	static void closeRedis() {
		redis.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { "sync", "async" })
	void messageOutlastsAStoreOutageWithoutReachingTheDeliveryLimit(String queue) throws InterruptedException {
		String id = UUID.randomUUID().toString();
		redis.stop();
		try {
			send(queue, id);
			// Messages of another listener of the factory, handled meanwhile
			for (int i = 0; i < 150; i++) {
				send("other", UUID.randomUUID().toString());
			}
			await().atMost(DEADLINE).until(() -> this.work.deliveries(id) >= 2);
			// Not a wait for something: the outage under test
			Thread.sleep(OUTAGE.toMillis());
			System.err.printf("%s: a message was delivered %d times in a store outage of %d s (delivery limit %d)%n",
					queue, this.work.deliveries(id), OUTAGE.toSeconds(), DELIVERY_LIMIT);
			assertThat(readyMessages(queue + ".dlq")).isZero();
			assertThat(this.work.effects(id)).isZero();
		}
		finally {
			redis.restart();
		}
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completed(id)).isOne());
		assertThat(this.work.effects(id)).isOne();
		assertThat(this.work.handledOthers()).isPositive();
		assertThat(readyMessages(queue + ".dlq")).isZero();
		assertThat(readyMessages(queue)).isZero();
	}

	private void send(String queue, String id) {
		this.rabbit.convertAndSend("", QUEUES + "." + queue, new Event(id));
	}

	private long readyMessages(String queue) {
		return this.admin.getQueueInfo(QUEUES + "." + queue).getMessageCount();
	}

	record Event(String id) {
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
			String sync = prefix + ".sync";
			String async = prefix + ".async";
			return new Declarables(List.of(quorum(sync), quorum(async),
					QueueBuilder.nonDurable(sync + ".dlq").expires(600_000).build(),
					QueueBuilder.nonDurable(async + ".dlq").expires(600_000).build(),
					QueueBuilder.nonDurable(prefix + ".other").expires(600_000).build()));
		}

		private static org.springframework.amqp.core.Queue quorum(String name) {
			return QueueBuilder.durable(name)
				.quorum()
				.deliveryLimit(DELIVERY_LIMIT)
				.deadLetterExchange("")
				.deadLetterRoutingKey(name + ".dlq")
				.expires(600_000)
				.build();
		}

	}

	static class Work {

		private final ExecutorService executor = Executors.newCachedThreadPool();

		private final Counts effects = new Counts();

		private final Counts deliveries = new Counts();

		private final Counts completed = new Counts();

		private final AtomicInteger others = new AtomicInteger();

		@Idempotent(name = "rabbit.quorum", key = "#event.id")
		public String charge(Event event) {
			this.effects.add(event.id());
			return "receipt-" + event.id();
		}

		@Idempotent(name = "rabbit.quorum-async", key = "#event.id")
		public CompletableFuture<String> chargeAsync(Event event) {
			return CompletableFuture.supplyAsync(() -> {
				this.effects.add(event.id());
				return "receipt-" + event.id();
			}, this.executor);
		}

		void handleOther() {
			try {
				// The other listener's work, long enough that its messages last the
				// outage
				Thread.sleep(40);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.others.incrementAndGet();
		}

		void delivered(String id) {
			this.deliveries.add(id);
		}

		void completedOne(String id) {
			this.completed.add(id);
		}

		int effects(String id) {
			return this.effects.get(id);
		}

		int deliveries(String id) {
			return this.deliveries.get(id);
		}

		int completed(String id) {
			return this.completed.get(id);
		}

		int handledOthers() {
			return this.others.get();
		}

	}

	static class Listeners {

		private final Work work;

		Listeners(Work work) {
			this.work = work;
		}

		@RabbitListener(queues = "${test.queues}.sync")
		void sync(Event event) {
			this.work.delivered(event.id());
			this.work.charge(event);
			this.work.completedOne(event.id());
		}

		@RabbitListener(queues = "${test.queues}.async")
		CompletableFuture<Void> async(Event event) {
			this.work.delivered(event.id());
			return this.work.chargeAsync(event).thenAccept((receipt) -> this.work.completedOne(event.id()));
		}

		@RabbitListener(queues = "${test.queues}.other")
		void other(Event event) {
			this.work.handleOther();
		}

	}

}
