package dev.idempotency.autoconfigure.amqp;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.annotation.Argument;
import org.springframework.amqp.rabbit.annotation.Exchange;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.QueueBinding;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Import;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A copy of a key in progress, requeued to the tail of its queue through the default
 * exchange, as its listener sees it on a real RabbitMQ and a real Redis: the exchange and
 * routing key the message was delivered with (a key made of the routing key is the same
 * key, so the effect runs once), redelivered, and its retry count; for a listener that
 * returns a {@code CompletableFuture} too.
 */
@SpringBootTest(classes = RabbitTailCopyTests.TestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "idempotency.lock-timeout=30s",
				"idempotency.messaging.in-progress-retry.initial-interval=100ms",
				"idempotency.messaging.in-progress-retry.max-interval=200ms",
				"spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false" })
@DirtiesContext
class RabbitTailCopyTests {

	private static final String PREFIX = "idempotency-tail-copy-" + UUID.randomUUID();

	// The exchange of a listener that returns nothing ("orders-async" of one that returns
	// a CompletableFuture)
	private static final String SYNC = PREFIX + ".orders";

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	@Autowired
	private RabbitTemplate rabbit;

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
		registry.add("idempotency.key-prefix", () -> PREFIX + ":");
		registry.add("test.prefix", () -> PREFIX);
	}

	@ParameterizedTest
	@ValueSource(strings = { "orders", "orders-async" })
	void copyKeepsTheExchangeAndRoutingKeyItWasDeliveredWithSoAKeyMadeOfThemRunsOnce(String listener) {
		String exchange = PREFIX + "." + listener;
		String routingKey = "orders." + UUID.randomUUID();
		Map<String, Integer> earlier = this.work.effects();
		String copy = holdACopy(exchange, routingKey, null);
		List<MessageProperties> deliveries = this.work.deliveries(copy);
		assertThat(deliveries).allSatisfy((delivered) -> {
			assertThat(delivered.getReceivedExchange()).isEqualTo(exchange);
			assertThat(delivered.getReceivedRoutingKey()).isEqualTo(routingKey);
			assertThat(delivered.getHeaders()).doesNotContainKeys("x-idempotency-exchange",
					"x-idempotency-routing-key");
		});
		assertThat(deliveries.get(0).getRedelivered()).isFalse();
		assertThat(deliveries.subList(1, deliveries.size())).allSatisfy((delivered) -> {
			assertThat(delivered.getHeaders()).containsKey("x-idempotency-requeues");
			assertThat(delivered.getRedelivered()).isTrue();
		});
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completions(copy)).isOne());
		// One effect, under the routing key, and none under another key
		Map<String, Integer> effects = this.work.effects();
		effects.keySet().removeAll(earlier.keySet());
		assertThat(effects).containsExactly(Map.entry(routingKey, 1));
	}

	@Test
	void copyKeepsItsRetryCount() {
		String routingKey = "orders." + UUID.randomUUID();
		String copy = holdACopy(SYNC, routingKey, (properties) -> properties.setRetryCount(2));
		List<MessageProperties> deliveries = this.work.deliveries(copy);
		assertThat(deliveries.get(1).getHeaders()).containsKey("x-idempotency-requeues");
		assertThat(deliveries).extracting(MessageProperties::getRetryCount).containsOnly(2L);
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completions(copy)).isOne());
		assertThat(this.work.effects()).containsEntry(routingKey, 1);
	}

	// Sends a message whose key (its routing key) is in progress, and returns its body
	// once it was delivered twice: once as sent, once as the copy requeued to the tail
	private String holdACopy(String exchange, String routingKey, Consumer<MessageProperties> properties) {
		CountDownLatch release = this.work.hold(routingKey);
		String copy = UUID.randomUUID().toString();
		try {
			send(exchange, routingKey, UUID.randomUUID().toString(), null);
			await().atMost(DEADLINE).until(() -> this.work.effects().containsKey(routingKey));
			send(exchange, routingKey, copy, properties);
			await().atMost(DEADLINE).until(() -> this.work.deliveries(copy).size() >= 2);
		}
		finally {
			release.countDown();
		}
		return copy;
	}

	private void send(String exchange, String routingKey, String body, Consumer<MessageProperties> properties) {
		this.rabbit.convertAndSend(exchange, routingKey, body, (message) -> {
			if (properties != null) {
				properties.accept(message.getMessageProperties());
			}
			return message;
		});
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ Work.class, Listeners.class })
	static class TestApplication {

	}

	static class Work {

		private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

		private final Map<String, List<MessageProperties>> deliveries = new ConcurrentHashMap<>();

		private final Map<String, AtomicInteger> completions = new ConcurrentHashMap<>();

		private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

		CountDownLatch hold(String routingKey) {
			return this.held.computeIfAbsent(routingKey, (k) -> new CountDownLatch(1));
		}

		@Idempotent(name = "rabbit.tail-copy", key = "#routingKey")
		public String charge(String routingKey) {
			return work(routingKey);
		}

		@Idempotent(name = "rabbit.tail-copy-async", key = "#routingKey")
		public CompletableFuture<String> chargeLater(String routingKey) {
			return CompletableFuture.supplyAsync(() -> work(routingKey));
		}

		private String work(String routingKey) {
			this.effects.computeIfAbsent(routingKey, (k) -> new AtomicInteger()).incrementAndGet();
			CountDownLatch latch = this.held.get(routingKey);
			if (latch != null) {
				try {
					assertThat(latch.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}
			return "receipt-" + routingKey;
		}

		// Methods, not fields: this bean is a proxy
		void delivered(String body, MessageProperties properties) {
			this.deliveries.computeIfAbsent(body, (k) -> new CopyOnWriteArrayList<>()).add(properties);
		}

		void completed(String body) {
			this.completions.computeIfAbsent(body, (k) -> new AtomicInteger()).incrementAndGet();
		}

		List<MessageProperties> deliveries(String body) {
			return this.deliveries.getOrDefault(body, List.of());
		}

		int completions(String body) {
			AtomicInteger count = this.completions.get(body);
			return (count != null) ? count.get() : 0;
		}

		Map<String, Integer> effects() {
			Map<String, Integer> counts = new ConcurrentHashMap<>();
			this.effects.forEach((key, count) -> counts.put(key, count.get()));
			return counts;
		}

	}

	static class Listeners {

		private final Work work;

		Listeners(Work work) {
			this.work = work;
		}

		@RabbitListener(
				bindings = @QueueBinding(
						value = @Queue(name = "${test.prefix}.orders-queue", durable = "false",
								arguments = @Argument(name = "x-expires", value = "600000",
										type = "java.lang.Integer")),
						exchange = @Exchange(name = "${test.prefix}.orders", type = "topic", durable = "false",
								autoDelete = "true"),
						key = "orders.#"),
				concurrency = "2")
		void order(String body, Message message, @Header(AmqpHeaders.RECEIVED_ROUTING_KEY) String routingKey) {
			this.work.delivered(body, message.getMessageProperties());
			this.work.charge(routingKey);
			this.work.completed(body);
		}

		@RabbitListener(
				bindings = @QueueBinding(
						value = @Queue(name = "${test.prefix}.orders-async-queue", durable = "false",
								arguments = @Argument(name = "x-expires", value = "600000",
										type = "java.lang.Integer")),
						exchange = @Exchange(name = "${test.prefix}.orders-async", type = "topic", durable = "false",
								autoDelete = "true"),
						key = "orders.#"),
				concurrency = "2")
		CompletableFuture<Void> orderLater(String body, Message message,
				@Header(AmqpHeaders.RECEIVED_ROUTING_KEY) String routingKey) {
			this.work.delivered(body, message.getMessageProperties());
			return this.work.chargeLater(routingKey).thenAccept((receipt) -> this.work.completed(body));
		}

	}

}
