package dev.idempotency.autoconfigure.amqp;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.observation.ObservationCollector;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
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
import org.springframework.boot.amqp.autoconfigure.ConnectionFactoryCustomizer;
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
 * The threads that requeue the messages of listeners returning a
 * {@code CompletableFuture}, on a real RabbitMQ and a real Redis: after its back-off, a
 * copy of a key in progress is requeued (a publish and a wait of up to 5 s for the
 * broker's confirmation) on a thread of the configurer's own, never on
 * {@code ForkJoinPool.commonPool()}, whose every thread such waits could take from the
 * application, nor on a thread started for each message (what
 * {@code CompletableFuture.delayedExecutor} does where the common pool has one thread),
 * and copies keep being requeued while every thread of the common pool is busy.
 */
@SpringBootTest(classes = RabbitAsyncRequeueThreadsTests.TestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "idempotency.lock-timeout=30s",
				"idempotency.messaging.in-progress-retry.initial-interval=50ms",
				"idempotency.messaging.in-progress-retry.max-interval=200ms",
				"spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false",
				"logging.level.dev.idempotency.amqp=debug" })
@DirtiesContext
class RabbitAsyncRequeueThreadsTests {

	private static final String QUEUES = "idempotency-requeue-threads-" + UUID.randomUUID();

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	@Autowired
	private RabbitTemplate rabbit;

	@Autowired
	private RabbitAdmin admin;

	@Autowired
	private Work work;

	@Autowired
	private Publishers publishers;

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
	void copiesOfAKeyInProgressAreRequeuedOnTheConfigurersThreadsWhileTheCommonPoolIsBusy() throws Exception {
		String id = UUID.randomUUID().toString();
		CountDownLatch release = this.work.hold(id);
		CountDownLatch commonPoolBusy = new CountDownLatch(1);
		int parallelism = ForkJoinPool.getCommonPoolParallelism();
		CountDownLatch started = new CountDownLatch(parallelism);
		for (int i = 0; i < parallelism; i++) {
			ForkJoinPool.commonPool().execute(() -> {
				started.countDown();
				awaitQuietly(commonPoolBusy);
			});
		}
		try {
			assertThat(started.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			CompletableFuture<String> first = this.work.charge(new Event(id));
			await().atMost(DEADLINE).until(() -> this.work.effects(id) == 1);
			send(new Event(id));
			await().atMost(DEADLINE).until(() -> this.work.deliveries(id) >= 4);
			release.countDown();
			assertThat(first.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("receipt-" + id);
		}
		finally {
			release.countDown();
			commonPoolBusy.countDown();
		}
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.completed(id)).isOne());
		assertThat(this.publishers.names()).isNotEmpty()
			.allSatisfy((name) -> assertThat(name).startsWith("idempotency-rabbit-requeue-"));
		assertThat(this.work.effects(id)).isOne();
		assertThat(readyMessages(".dlq")).isZero();
	}

	private void send(Event event) {
		this.rabbit.convertAndSend("", QUEUES + ".async", event);
	}

	private long readyMessages(String suffix) {
		return this.admin.getQueueInfo(QUEUES + ".async" + suffix).getMessageCount();
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	record Event(String id) {
	}

	// The names of the threads that publish, but the test's own (an observation
	// collector, since Spring Boot replaces a metrics collector with its own)
	static class Publishers implements ObservationCollector {

		private final Set<String> names = ConcurrentHashMap.newKeySet();

		private volatile String testThread = "";

		@Override
		public void publish(PublishCall call, AMQP.Basic.Publish publish, AMQP.BasicProperties properties, byte[] body,
				ConnectionInfo connectionInfo) throws IOException {
			String name = Thread.currentThread().getName();
			if (!name.equals(this.testThread)) {
				this.names.add(name);
			}
			call.publish(properties);
		}

		@Override
		public Consumer basicConsume(String queue, String consumerTag, Consumer consumer) {
			return consumer;
		}

		@Override
		public GetResponse basicGet(BasicGetCall call, String queue) {
			return call.get();
		}

		Set<String> names() {
			return this.names;
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ Work.class, Listeners.class })
	static class TestApplication {

		@Bean
		Publishers publishers() {
			Publishers publishers = new Publishers();
			publishers.testThread = Thread.currentThread().getName();
			return publishers;
		}

		@Bean
		ConnectionFactoryCustomizer observationCollector(Publishers publishers) {
			return (connectionFactory) -> connectionFactory.setObservationCollector(publishers);
		}

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

		// Not the common pool, which the test keeps busy
		private final ExecutorService executor = Executors.newCachedThreadPool();

		private final Counts effects = new Counts();

		private final Counts deliveries = new Counts();

		private final Counts completed = new Counts();

		private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

		CountDownLatch hold(String id) {
			return this.held.computeIfAbsent(id, (k) -> new CountDownLatch(1));
		}

		@Idempotent(name = "rabbit.requeue-threads", key = "#event.id")
		public CompletableFuture<String> charge(Event event) {
			return CompletableFuture.supplyAsync(() -> {
				this.effects.add(event.id());
				CountDownLatch latch = this.held.get(event.id());
				if (latch != null) {
					awaitQuietly(latch);
				}
				return "receipt-" + event.id();
			}, this.executor);
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

		@RabbitListener(queues = "${test.queues}.async")
		CompletableFuture<Void> async(Event event) {
			this.work.delivered(event.id());
			return this.work.charge(event).thenAccept((receipt) -> this.work.completedOne(event.id()));
		}

	}

}
