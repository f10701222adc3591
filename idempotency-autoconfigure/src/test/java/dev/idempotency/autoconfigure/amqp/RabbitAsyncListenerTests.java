package dev.idempotency.autoconfigure.amqp;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Declarable;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Message;
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
 * {@code @RabbitListener}s that return the {@code CompletableFuture} of
 * {@code @Idempotent} work, on a real RabbitMQ and a real Redis, with
 * {@code default-requeue-rejected: false} as the README recommends: a copy that meets its
 * event in progress, or a store that is down, is requeued until it can run or replay,
 * never dead-lettered; a reused key is.
 */
@SpringBootTest(classes = RabbitAsyncListenerTests.TestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "idempotency.lock-timeout=10s",
				"idempotency.redis.command-timeout=500ms",
				"idempotency.messaging.in-progress-retry.initial-interval=50ms",
				"idempotency.messaging.in-progress-retry.max-interval=400ms",
				"spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false",
				"logging.level.dev.idempotency.amqp=debug" })
// Its Redis is stopped by a test: a cached context would keep reconnecting to it, and log
// so, while the test classes after it run
@DirtiesContext
class RabbitAsyncListenerTests {

	private static final String QUEUES = "idempotency-async-" + UUID.randomUUID();

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
	@ValueSource(strings = { "async", "mono" })
	void copyOfAnAsyncEventInProgressIsRequeuedUntilItReplaysNotDeadLettered(String queue) {
		String id = UUID.randomUUID().toString();
		CountDownLatch release = this.work.hold(id);
		send(queue, new Event(id, 1));
		await().atMost(DEADLINE).until(() -> this.work.effects(id) == 1);
		send(queue, new Event(id, 1));
		await().atMost(DEADLINE).until(() -> this.work.deliveries(id) >= 4);
		assertThat(readyMessages(queue + ".dlq")).isZero();
		release.countDown();
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completed(id)).isEqualTo(2));
		assertThat(this.work.requeuedToTail(id)).isTrue();
		assertThat(this.work.effects(id)).isOne();
		assertThat(readyMessages(queue)).isZero();
		assertThat(readyMessages(queue + ".dlq")).isZero();
	}

	@ParameterizedTest
	@ValueSource(strings = { "async", "mono" })
	void asyncEventMeetingAStoreOutageIsRequeuedUntilTheStoreIsBackNotDeadLettered(String queue) {
		String id = UUID.randomUUID().toString();
		redis.stop();
		try {
			send(queue, new Event(id, 1));
			await().atMost(DEADLINE).until(() -> this.work.deliveries(id) >= 4);
			assertThat(readyMessages(queue + ".dlq")).isZero();
			assertThat(this.work.effects(id)).isZero();
		}
		finally {
			redis.restart();
		}
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completed(id)).isOne());
		assertThat(this.work.effects(id)).isOne();
		assertThat(readyMessages(queue)).isZero();
		assertThat(readyMessages(queue + ".dlq")).isZero();
	}

	@Test
	void asyncEventWithAReusedKeyIsDeadLetteredWithoutRetries() {
		String id = UUID.randomUUID().toString();
		send("async", new Event(id, 1));
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completed(id)).isOne());
		send("async", new Event(id, 2));
		assertThat(this.rabbit.receive(QUEUES + ".async.dlq", DEADLINE.toMillis())).isNotNull();
		assertThat(this.work.deliveries(id)).isEqualTo(2);
		assertThat(this.work.effects(id)).isOne();
	}

	private void send(String queue, Event event) {
		this.rabbit.convertAndSend("", QUEUES + "." + queue, event);
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
			for (String name : List.of("async", "mono")) {
				String queue = prefix + "." + name;
				declarables.add(QueueBuilder.nonDurable(queue)
					.deadLetterExchange("")
					.deadLetterRoutingKey(queue + ".dlq")
					.expires(600_000)
					.build());
				declarables.add(QueueBuilder.nonDurable(queue + ".dlq").expires(600_000).build());
			}
			return new Declarables(declarables);
		}

	}

	static class Work {

		private final Counts effects = new Counts();

		private final Counts deliveries = new Counts();

		private final Counts completed = new Counts();

		private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

		private final Set<String> requeuedToTail = ConcurrentHashMap.newKeySet();

		CountDownLatch hold(String id) {
			return this.held.computeIfAbsent(id, (k) -> new CountDownLatch(1));
		}

		@Idempotent(name = "rabbit.async", key = "#event.id", payload = "#event")
		public CompletableFuture<String> charge(Event event) {
			return CompletableFuture.supplyAsync(() -> {
				this.effects.add(event.id());
				CountDownLatch latch = this.held.get(event.id());
				if (latch != null) {
					await(latch);
				}
				return "receipt-" + event.id();
			});
		}

		@Idempotent(name = "rabbit.mono", key = "#event.id", payload = "#event")
		public Mono<String> chargeMono(Event event) {
			return Mono.fromCallable(() -> {
				this.effects.add(event.id());
				CountDownLatch latch = this.held.get(event.id());
				if (latch != null) {
					await(latch);
				}
				return "receipt-" + event.id();
			}).subscribeOn(Schedulers.boundedElastic());
		}

		private static void await(CountDownLatch latch) {
			try {
				assertThat(latch.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}

		void countDelivery(String id, Message message) {
			this.deliveries.add(id);
			if (message.getMessageProperties().getHeaders().containsKey("x-idempotency-requeues")) {
				this.requeuedToTail.add(id);
			}
		}

		boolean requeuedToTail(String id) {
			return this.requeuedToTail.contains(id);
		}

		void countCompletion(String id) {
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

		@RabbitListener(queues = "${test.queues}.async", concurrency = "2")
		CompletableFuture<Void> async(Event event, Message message) {
			this.work.countDelivery(event.id(), message);
			return this.work.charge(event).thenAccept((receipt) -> this.work.countCompletion(event.id()));
		}

		@RabbitListener(queues = "${test.queues}.mono", concurrency = "2")
		Mono<Void> mono(Event event, Message message) {
			this.work.countDelivery(event.id(), message);
			return this.work.chargeMono(event).doOnNext((receipt) -> this.work.countCompletion(event.id())).then();
		}

	}

}
