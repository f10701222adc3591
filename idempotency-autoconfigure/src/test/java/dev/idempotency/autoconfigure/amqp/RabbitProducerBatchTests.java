package dev.idempotency.autoconfigure.amqp;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.rabbitmq.client.Channel;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.batch.SimpleBatchingStrategy;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.BatchingRabbitTemplate;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Messages a {@code BatchingRabbitTemplate} sent in one producer-side batch, on a real
 * RabbitMQ and a real Redis, in {@code MANUAL} mode: Spring AMQP splits the batch into
 * messages that share its one delivery tag, so a message of it whose key is in progress
 * is requeued with the whole batch, at the head, never copied to the tail and
 * acknowledged, which acknowledged its siblings too, and lost one that its listener then
 * sent back with a negative acknowledgement.
 */
@SpringBootTest(classes = RabbitProducerBatchTests.TestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "idempotency.lock-timeout=30s",
				"idempotency.messaging.in-progress-retry.initial-interval=50ms",
				"idempotency.messaging.in-progress-retry.max-interval=200ms",
				"spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false" })
@DirtiesContext
class RabbitProducerBatchTests {

	private static final String QUEUES = "idempotency-batch-" + UUID.randomUUID();

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	@Autowired
	private BatchingRabbitTemplate batching;

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
	void noMessageOfABatchIsLostWhenOneOfItsKeysIsInProgress() throws Exception {
		String held = UUID.randomUUID().toString();
		String retried = UUID.randomUUID().toString();
		String last = UUID.randomUUID().toString();
		CountDownLatch release = this.work.hold(held);
		CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> this.work.charge(new Event(held)));
		try {
			await().atMost(DEADLINE).until(() -> this.work.effects(held) == 1);
			this.work.nackOnce(retried);
			for (String id : List.of(held, retried, last)) {
				this.batching.convertAndSend("", QUEUES + ".batch", new Event(id));
			}
			await().atMost(DEADLINE).until(() -> this.work.deliveries(held) >= 2);
		}
		finally {
			release.countDown();
		}
		assertThat(first.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("receipt-" + held);
		await().atMost(DEADLINE)
			.untilAsserted(() -> assertThat(List.of(this.work.completed(retried), this.work.completed(last)))
				.containsExactly(1, 1));
		assertThat(this.work.effects(held)).isOne();
		assertThat(this.work.effects(retried)).isOne();
		assertThat(this.work.effects(last)).isOne();
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(readyMessages("batch")).isZero());
		assertThat(readyMessages("batch.dlq")).isZero();
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
			String queue = prefix + ".batch";
			return new Declarables(List.of(QueueBuilder.nonDurable(queue)
				.deadLetterExchange("")
				.deadLetterRoutingKey(queue + ".dlq")
				.expires(600_000)
				.build(), QueueBuilder.nonDurable(queue + ".dlq").expires(600_000).build()));
		}

		@Bean(destroyMethod = "shutdown")
		ThreadPoolTaskScheduler batchScheduler() {
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
			scheduler.setThreadNamePrefix("test-batches-");
			return scheduler;
		}

		// Releases a batch of three messages once the third is sent
		@Bean
		BatchingRabbitTemplate batchingRabbitTemplate(ConnectionFactory connectionFactory,
				JacksonJsonMessageConverter converter, ThreadPoolTaskScheduler batchScheduler) {
			BatchingRabbitTemplate template = new BatchingRabbitTemplate(connectionFactory,
					new SimpleBatchingStrategy(3, 1_000_000, 60_000), batchScheduler);
			template.setMessageConverter(converter);
			return template;
		}

	}

	static class Work {

		private final Counts effects = new Counts();

		private final Counts deliveries = new Counts();

		private final Counts completed = new Counts();

		private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

		private final Map<String, Boolean> nackOnce = new ConcurrentHashMap<>();

		CountDownLatch hold(String id) {
			return this.held.computeIfAbsent(id, (k) -> new CountDownLatch(1));
		}

		void nackOnce(String id) {
			this.nackOnce.put(id, true);
		}

		boolean takeNack(String id) {
			return this.nackOnce.remove(id) != null;
		}

		@Idempotent(name = "rabbit.batch", key = "#event.id")
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

	}

	static class Listeners {

		private final Work work;

		Listeners(Work work) {
			this.work = work;
		}

		private volatile long nackedTag = -1;

		// The messages of a batch share its delivery tag: acknowledged with the last,
		// sent back whole with a negative acknowledgement when one of them failed, and
		// the rest of it skipped, since it comes again
		@RabbitListener(queues = "${test.queues}.batch", ackMode = "MANUAL")
		void batch(Event event, Message message, Channel channel) throws IOException {
			this.work.delivered(event.id());
			long tag = message.getMessageProperties().getDeliveryTag();
			if (tag == this.nackedTag) {
				return;
			}
			if (this.work.takeNack(event.id())) {
				this.nackedTag = tag;
				channel.basicNack(tag, false, true);
				return;
			}
			this.work.charge(event);
			this.work.completedOne(event.id());
			if (message.getMessageProperties().isLastInBatch()) {
				channel.basicAck(tag, false);
			}
		}

	}

}
