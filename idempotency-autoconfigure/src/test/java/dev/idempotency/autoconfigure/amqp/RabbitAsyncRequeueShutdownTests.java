package dev.idempotency.autoconfigure.amqp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A context that closes while the configurer's threads hold a copy of a key in progress
 * of a listener returning a {@code CompletableFuture}, on a real RabbitMQ and a real
 * Redis: the containers stop first, so the broker requeues the copy as its channel
 * closes, and closing the configurer, which now settles what its threads still held, adds
 * no other message to the queue (a copy to the tail whose acknowledgement could not reach
 * the closed channel would be a duplicate).
 */
class RabbitAsyncRequeueShutdownTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	@Test
	void closingTheContextWhileACopyIsHeldLeavesOnlyTheMessagesTheBrokerRequeued() throws Exception {
		String prefix = "idempotency-requeue-shutdown-" + UUID.randomUUID();
		String queue = prefix + ".async";
		String id = UUID.randomUUID().toString();
		CachingConnectionFactory connectionFactory = new CachingConnectionFactory(TestRabbit.get().host(),
				TestRabbit.get().port());
		List<String> properties = new ArrayList<>(List.of(TestRabbit.get().properties()));
		for (String property : properties) {
			String[] pair = property.split("=", 2);
			if (pair[0].endsWith("username")) {
				connectionFactory.setUsername(pair[1]);
			}
			else if (pair[0].endsWith("password")) {
				connectionFactory.setPassword(pair[1]);
			}
			else if (pair[0].endsWith("virtual-host")) {
				connectionFactory.setVirtualHost(pair[1]);
			}
		}
		properties.addAll(List.of("spring.data.redis.host=" + TestRedis.get().host(),
				"spring.data.redis.port=" + TestRedis.get().port(), "idempotency.store=redis",
				"idempotency.key-prefix=" + prefix + ":", "idempotency.lock-timeout=60s",
				// Held by the configurer's threads until the context closes
				"idempotency.messaging.in-progress-retry.initial-interval=50s",
				"idempotency.messaging.in-progress-retry.max-interval=50s", "logging.level.dev.idempotency.amqp=debug",
				"spring.rabbitmq.listener.simple.prefetch=1", "spring.rabbitmq.listener.simple.concurrency=2",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false", "test.queues=" + prefix));
		RabbitAdmin admin = new RabbitAdmin(connectionFactory);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApplication.class)
			.web(WebApplicationType.NONE)
			.properties(properties.toArray(new String[0]))
			.run();
		Work work = context.getBean(Work.class);
		CountDownLatch release = work.hold(id);
		try {
			try {
				RabbitTemplate rabbit = context.getBean(RabbitTemplate.class);
				rabbit.convertAndSend("", queue, new Event(id));
				await().atMost(DEADLINE).until(() -> work.effects(id) == 1);
				rabbit.convertAndSend("", queue, new Event(id));
				// The copy met the key in progress and is held for its back-off
				await().atMost(DEADLINE).until(() -> work.failed(id) == 1);
				release.countDown();
				await().atMost(DEADLINE).until(() -> work.completed(id) == 1);
			}
			finally {
				context.close();
			}
			// The copy, requeued by the broker as its channel closed, and no other
			await().atMost(DEADLINE).until(() -> admin.getQueueInfo(queue).getMessageCount() >= 1);
			assertThat(admin.getQueueInfo(queue).getMessageCount()).isOne();
		}
		finally {
			release.countDown();
			admin.deleteQueue(queue);
			admin.deleteQueue(queue + ".dlq");
			connectionFactory.destroy();
			work.shutdown();
			context.close();
		}
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
			String queue = prefix + ".async";
			return new Declarables(List.of(QueueBuilder.nonDurable(queue)
				.deadLetterExchange("")
				.deadLetterRoutingKey(queue + ".dlq")
				.expires(600_000)
				.build(), QueueBuilder.nonDurable(queue + ".dlq").expires(600_000).build()));
		}

	}

	static class Work {

		private final ExecutorService executor = Executors.newCachedThreadPool();

		private final Counts effects = new Counts();

		private final Counts failed = new Counts();

		private final Counts completed = new Counts();

		private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

		CountDownLatch hold(String id) {
			return this.held.computeIfAbsent(id, (k) -> new CountDownLatch(1));
		}

		@Idempotent(name = "rabbit.requeue-shutdown", key = "#event.id")
		public CompletableFuture<String> charge(Event event) {
			return CompletableFuture.supplyAsync(() -> {
				this.effects.add(event.id());
				CountDownLatch latch = this.held.get(event.id());
				if (latch != null) {
					try {
						latch.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
				return "receipt-" + event.id();
			}, this.executor);
		}

		void shutdown() {
			this.executor.shutdownNow();
		}

		void completedOne(String id) {
			this.completed.add(id);
		}

		int completed(String id) {
			return this.completed.get(id);
		}

		void failedOne(String id) {
			this.failed.add(id);
		}

		int effects(String id) {
			return this.effects.get(id);
		}

		int failed(String id) {
			return this.failed.get(id);
		}

	}

	static class Listeners {

		private final Work work;

		Listeners(Work work) {
			this.work = work;
		}

		@RabbitListener(queues = "${test.queues}.async")
		CompletableFuture<Void> async(Event event) {
			return this.work.charge(event).whenComplete((receipt, thrown) -> {
				if (thrown != null) {
					this.work.failedOne(event.id());
				}
			}).thenAccept((receipt) -> this.work.completedOne(event.id()));
		}

	}

}
