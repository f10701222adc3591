package dev.idempotency.autoconfigure.amqp;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import com.rabbitmq.client.Channel;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.Idempotent;
import dev.idempotency.amqp.IdempotencyRabbitListenerConfigurer;
import dev.idempotency.messaging.InProgressBackOff;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Declarable;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Copies of a key in progress on a real RabbitMQ and a real Redis: requeued behind the
 * other messages of their queue, so that those keep flowing while the first attempt runs;
 * the copy keeps its body, headers and properties; and its back-off grows with the times
 * it was requeued, on whichever instance.
 */
@SpringBootTest(classes = RabbitInProgressCopiesTests.TestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "idempotency.lock-timeout=30s",
				"idempotency.messaging.in-progress-retry.initial-interval=100ms",
				"idempotency.messaging.in-progress-retry.max-interval=400ms",
				"spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false" })
// Its broker connections and consumers would otherwise keep running, and take CPU from
// the test classes after it
@DirtiesContext
class RabbitInProgressCopiesTests {

	private static final String QUEUES = "idempotency-copies-" + UUID.randomUUID();

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private static final Duration HELD = Duration.ofSeconds(20);

	// Several instances, each with its own count of what it held
	private static final InProgressBackOff INSTANCES_BACK_OFF = new InProgressBackOff(Duration.ofMillis(20), 2,
			Duration.ofSeconds(1));

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

	@ParameterizedTest
	@ValueSource(strings = { "flow", "flow-manual" })
	void otherMessagesFlowWhileThreeCopiesOfAKeyInProgressCirculate(String queue) {
		String key = UUID.randomUUID().toString();
		CountDownLatch release = this.work.hold(key);
		try {
			send(queue, new Event(key, 0), null);
			await().atMost(DEADLINE).until(() -> this.work.effects(key) == 1);
			for (int copy = 0; copy < 3; copy++) {
				send(queue, new Event(key, 0), null);
			}
			await().atMost(DEADLINE).until(() -> this.work.deliveries(key) >= 4);
			List<String> others = new ArrayList<>();
			long start = System.nanoTime();
			for (int i = 0; i < 20; i++) {
				String id = UUID.randomUUID().toString();
				others.add(id);
				send(queue, new Event(id, i), null);
			}
			await().atMost(HELD).until(() -> others.stream().allMatch((id) -> this.work.completed(id) == 1));
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			System.err.printf(
					"%s: 20 other events took %d ms while 3 copies of a key in progress circulated "
							+ "(concurrency 4, prefetch 1, back-off 100-400 ms); the copies were delivered %d times%n",
					queue, took.toMillis(), this.work.deliveries(key) - 1);
			assertThat(took).isLessThan(Duration.ofSeconds(5));
		}
		finally {
			release.countDown();
		}
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completed(key)).isEqualTo(4));
		assertThat(this.work.effects(key)).isOne();
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(readyMessages(queue)).isZero());
		assertThat(readyMessages(queue + ".dlq")).isZero();
	}

	@Test
	void copyRequeuedToTheTailKeepsItsBodyHeadersAndProperties() {
		String key = UUID.randomUUID().toString();
		CountDownLatch release = this.work.hold(key);
		try {
			send("flow", new Event(key, 0), null);
			await().atMost(DEADLINE).until(() -> this.work.effects(key) == 1);
			send("flow", new Event(key, 0), (properties) -> {
				properties.setHeader("trace-id", "trace-1");
				properties.setMessageId("message-1");
				properties.setCorrelationId("correlation-1");
				properties.setAppId("app-1");
				properties.setType("payment");
				properties.setPriority(3);
				properties.setDeliveryMode(MessageDeliveryMode.NON_PERSISTENT);
			});
			await().atMost(DEADLINE).until(() -> this.work.received(key).size() >= 3);
		}
		finally {
			release.countDown();
		}
		List<MessageProperties> received = this.work.received(key);
		MessageProperties first = received.get(1);
		MessageProperties requeued = received.get(2);
		assertThat(requeued.getHeaders()).containsEntry("trace-id", "trace-1")
			.containsEntry("x-idempotency-requeues", 1)
			.containsEntry("__TypeId__", first.getHeaders().get("__TypeId__"));
		assertThat(requeued.getMessageId()).isEqualTo("message-1");
		assertThat(requeued.getCorrelationId()).isEqualTo("correlation-1");
		assertThat(requeued.getAppId()).isEqualTo("app-1");
		assertThat(requeued.getType()).isEqualTo("payment");
		assertThat(requeued.getPriority()).isEqualTo(3);
		assertThat(requeued.getContentType()).isEqualTo(first.getContentType());
		assertThat(requeued.getReceivedDeliveryMode()).isEqualTo(MessageDeliveryMode.NON_PERSISTENT);
		assertThat(requeued.getConsumerQueue()).isEqualTo(QUEUES + ".flow");
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completed(key)).isEqualTo(2));
	}

	@Test
	void backOffOfACopyGrowsWithItsRequeuesOnWhicheverInstanceHeldIt() throws Exception {
		String key = UUID.randomUUID().toString();
		CountDownLatch release = this.work.hold(key);
		CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> this.work.charge(new Event(key, 0)));
		try {
			await().atMost(DEADLINE).until(() -> this.work.effects(key) == 1);
			send("instances", new Event(key, 0), null);
			await().atMost(DEADLINE).until(() -> this.work.deliveries(key) >= 1);
			// Not a wait for something: the window the deliveries are counted in
			Thread.sleep(2_500);
		}
		finally {
			release.countDown();
		}
		int deliveries = this.work.deliveries(key);
		System.err.printf("A copy held by three instances was delivered %d times in 2.5 s (back-off 20 ms doubling "
				+ "to 1 s); one instance alone would deliver it about 7 times%n", deliveries);
		assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("receipt-" + key);
		assertThat(deliveries).isBetween(2, 10);
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completed(key)).isEqualTo(1));
	}

	private void send(String queue, Event event, @Nullable Consumer<MessageProperties> properties) {
		this.rabbit.convertAndSend("", QUEUES + "." + queue, event, (message) -> {
			if (properties != null) {
				properties.accept(message.getMessageProperties());
			}
			return message;
		});
	}

	private long readyMessages(String queue) {
		return this.admin.getQueueInfo(QUEUES + "." + queue).getMessageCount();
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
			List<Declarable> declarables = new ArrayList<>();
			for (String name : List.of("flow", "flow-manual", "instances")) {
				String queue = prefix + "." + name;
				declarables.add(QueueBuilder.nonDurable(queue)
					.deadLetterExchange("")
					.deadLetterRoutingKey(queue + ".dlq")
					.maxPriority(5)
					.expires(600_000)
					.build());
				declarables.add(QueueBuilder.nonDurable(queue + ".dlq").expires(600_000).build());
			}
			return new Declarables(declarables);
		}

		@Bean
		SimpleRabbitListenerContainerFactory instance1(ConnectionFactory connectionFactory,
				JacksonJsonMessageConverter converter) {
			return instance(connectionFactory, converter);
		}

		@Bean
		SimpleRabbitListenerContainerFactory instance2(ConnectionFactory connectionFactory,
				JacksonJsonMessageConverter converter) {
			return instance(connectionFactory, converter);
		}

		@Bean
		SimpleRabbitListenerContainerFactory instance3(ConnectionFactory connectionFactory,
				JacksonJsonMessageConverter converter) {
			return instance(connectionFactory, converter);
		}

		private static SimpleRabbitListenerContainerFactory instance(ConnectionFactory connectionFactory,
				JacksonJsonMessageConverter converter) {
			SimpleRabbitListenerContainerFactory factory = new SimpleRabbitListenerContainerFactory();
			factory.setConnectionFactory(connectionFactory);
			factory.setMessageConverter(converter);
			factory.setPrefetchCount(1);
			factory.setDefaultRequeueRejected(false);
			return new IdempotencyRabbitListenerConfigurer(INSTANCES_BACK_OFF).applyTo(factory);
		}

	}

	static class Work {

		private final Counts effects = new Counts();

		private final Counts deliveries = new Counts();

		private final Counts completed = new Counts();

		private final Map<String, List<MessageProperties>> received = new ConcurrentHashMap<>();

		private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

		CountDownLatch hold(String id) {
			return this.held.computeIfAbsent(id, (k) -> new CountDownLatch(1));
		}

		@Idempotent(name = "rabbit.copies", key = "#event.id")
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
			else {
				sleep();
			}
			return "receipt-" + event.id();
		}

		private static void sleep() {
			try {
				// Work long enough to take a consumer for a moment
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		void delivered(Event event, Message message) {
			this.deliveries.add(event.id());
			this.received.computeIfAbsent(event.id(), (k) -> new CopyOnWriteArrayList<>())
				.add(message.getMessageProperties());
		}

		void completed(Event event) {
			this.completed.add(event.id());
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

		List<MessageProperties> received(String id) {
			return this.received.getOrDefault(id, List.of());
		}

	}

	static class Listeners {

		private final Work work;

		Listeners(Work work) {
			this.work = work;
		}

		@RabbitListener(queues = "${test.queues}.flow", concurrency = "4")
		void flow(Event event, Message message) {
			this.work.delivered(event, message);
			this.work.charge(event);
			this.work.completed(event);
		}

		@RabbitListener(queues = "${test.queues}.flow-manual", concurrency = "4", ackMode = "MANUAL")
		void flowManual(Event event, Message message, Channel channel, @Header(AmqpHeaders.DELIVERY_TAG) long tag)
				throws IOException {
			this.work.delivered(event, message);
			this.work.charge(event);
			channel.basicAck(tag, false);
			this.work.completed(event);
		}

		@RabbitListener(queues = "${test.queues}.instances", containerFactory = "instance1")
		void instance1(Event event, Message message) {
			instance(event, message);
		}

		@RabbitListener(queues = "${test.queues}.instances", containerFactory = "instance2")
		void instance2(Event event, Message message) {
			instance(event, message);
		}

		@RabbitListener(queues = "${test.queues}.instances", containerFactory = "instance3")
		void instance3(Event event, Message message) {
			instance(event, message);
		}

		private void instance(Event event, Message message) {
			this.work.delivered(event, message);
			this.work.charge(event);
			this.work.completed(event);
		}

	}

}
