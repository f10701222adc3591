package dev.idempotency.autoconfigure.amqp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import com.rabbitmq.client.Channel;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.Idempotent;
import dev.idempotency.autoconfigure.LoggedLines;
import dev.idempotency.engine.IdempotencyListener;
import dev.idempotency.engine.Outcome;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Declarable;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.DirectRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ChannelProxy;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.ListenerContainerConsumerFailedEvent;
import org.springframework.amqp.support.AmqpHeaders;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Idempotent} work behind {@code @RabbitListener}s on a real RabbitMQ and a real
 * Redis, with the settings the README recommends (Spring Boot's retry interceptor
 * included): side effects equal unique events, and no message is lost.
 */
@SpringBootTest(classes = RabbitIdempotentListenerTests.TestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "idempotency.lock-timeout=10s",
				"idempotency.messaging.in-progress-retry.initial-interval=50ms",
				"idempotency.messaging.in-progress-retry.max-interval=400ms",
				"spring.rabbitmq.listener.simple.acknowledge-mode=auto", "spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false",
				"spring.rabbitmq.listener.simple.retry.enabled=true",
				"spring.rabbitmq.listener.simple.retry.max-retries=2",
				"spring.rabbitmq.listener.simple.retry.initial-interval=10ms",
				"logging.level.dev.idempotency.amqp=debug" })
@ExtendWith(OutputCaptureExtension.class)
// Its broker connections and consumers would otherwise keep running, and take CPU from
// the test classes after it
@DirtiesContext
class RabbitIdempotentListenerTests {

	private static final String QUEUES = "idempotency-test-" + UUID.randomUUID();

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private static final int QUEUE_EXPIRY_MILLIS = 600_000;

	@Autowired
	private RabbitTemplate rabbit;

	@Autowired
	private RabbitAdmin admin;

	@Autowired
	private Tally tally;

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
	@ValueSource(strings = { "auto", "manual", "direct" })
	void duplicatesFromTheProducerOnConcurrentConsumersHaveOneEffectEach(String queue) {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			String id = UUID.randomUUID().toString();
			ids.add(id);
			for (int copy = 0; copy < 3; copy++) {
				send(queue, new Event(id, i));
			}
		}
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.tally.handled(queue)).isEqualTo(90));
		assertThat(ids).allSatisfy((id) -> assertThat(this.tally.effects(id)).isEqualTo(1));
		assertThat(readyMessages(queue)).isZero();
		assertThat(readyMessages(queue + ".dlq")).isZero();
	}

	@ParameterizedTest
	@ValueSource(strings = { "slow", "slow-manual" })
	void duplicateOfAnEventInProgressIsHeldAndRequeuedUntilItReplaysWithOneDebugLinePerRequeue(String queue,
			CapturedOutput output) {
		String id = UUID.randomUUID().toString();
		int consumerFailures = this.tally.consumerFailures();
		// Other tests use the queue too
		int handled = this.tally.handled(queue);
		CountDownLatch release = this.tally.holdSlow(id);
		int from = output.length();
		send(queue, new Event(id, 1));
		send(queue, new Event(id, 1));
		await().atMost(DEADLINE).until(() -> this.tally.deliveries(id).size() >= 4);
		List<Long> deliveries = this.tally.deliveries(id);
		assertThat(Duration.ofNanos(deliveries.get(3) - deliveries.get(1)))
			.isGreaterThanOrEqualTo(Duration.ofMillis(150));
		assertThat(this.tally.handled(queue)).isEqualTo(handled);
		assertThat(readyMessages(queue + ".dlq")).isZero();
		release.countDown();
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.tally.handled(queue)).isEqualTo(handled + 2));
		assertThat(this.tally.effects(id)).isEqualTo(1);
		assertThat(readyMessages(queue)).isZero();
		assertThat(readyMessages(queue + ".dlq")).isZero();
		assertThat(this.tally.consumerFailures()).isEqualTo(consumerFailures);
		LoggedLines logged = LoggedLines.since(output, from);
		assertThat(logged.stackTraceLinesFrom("org.springframework.amqp", "com.rabbitmq", "dev.idempotency")).isEmpty();
		assertThat(logged.atWarnOrError("org.springframework.amqp", "dev.idempotency")).isEmpty();
		// The first delivery ran, the last replayed: every other one was requeued
		assertThat(logged.from("dev.idempotency.amqp", "DEBUG")
			.filter((line) -> line.contains("'rabbit.slow'") && line.contains(id)))
			.hasSize(this.tally.deliveries(id).size() - 2)
			.allMatch((line) -> line.contains("in progress") && line.contains("Requeueing a message in "));
	}

	@Test
	void retryOfTheListenersOwnFailureThatMeetsTheEventInProgressIsHeldNotDeadLettered() {
		String id = UUID.randomUUID().toString();
		CountDownLatch release = this.tally.holdSlow(id);
		send("slow", new Event(id, 1));
		await().atMost(DEADLINE).until(() -> this.tally.effects(id) == 1);
		this.tally.dieMidWork(id);
		send("retry", new Event(id, 1));
		// The retry interceptor's attempts, then the held and requeued deliveries
		await().atMost(DEADLINE).until(() -> this.tally.deliveries(id).size() >= 5);
		assertThat(readyMessages("retry.dlq")).isZero();
		release.countDown();
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.tally.handled("retry")).isEqualTo(1));
		assertThat(this.tally.effects(id)).isEqualTo(1);
		assertThat(readyMessages("retry")).isZero();
		assertThat(readyMessages("retry.dlq")).isZero();
	}

	@Test
	void consumerThatDiesBeforeAcknowledgingLosesNothingAndDoesNotRepeatTheEffect() {
		String id = UUID.randomUUID().toString();
		this.tally.dieMidWork(id);
		send("crash", new Event(id, 1));
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.tally.handledRedelivered()).isEqualTo(1));
		assertThat(this.tally.effects(id)).isEqualTo(1);
		assertThat(readyMessages("crash")).isZero();
		assertThat(readyMessages("crash.dlq")).isZero();
	}

	@Test
	void keyReusedWithAnotherPayloadIsDeadLetteredWithOneWarningAndNeverRetried(CapturedOutput output) {
		String id = UUID.randomUUID().toString();
		send("reuse", new Event(id, 100));
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.tally.handled("reuse")).isEqualTo(1));
		int from = output.length();
		send("reuse", new Event(id, 200));
		Message deadLettered = this.rabbit.receive(QUEUES + ".reuse.dlq", DEADLINE.toMillis());
		assertThat(deadLettered).isNotNull();
		assertThat(LoggedLines.since(output, from)
			.from("dev.idempotency.amqp", "WARN")
			.filter((line) -> line.contains(id))).singleElement()
			.asString()
			.contains("'rabbit.reuse'", "without requeue");
		assertThat(new String(deadLettered.getBody(), StandardCharsets.UTF_8)).contains("200");
		assertThat(this.tally.effects(id)).isEqualTo(1);
		assertThat(this.tally.deliveries(id)).hasSize(2);
		assertThat(this.tally.handled("reuse")).isEqualTo(1);
	}

	@Test
	void keyFromAHeaderParameter() {
		String key = UUID.randomUUID().toString();
		for (int i = 0; i < 3; i++) {
			this.rabbit.convertAndSend("", QUEUES + ".header", new Event(UUID.randomUUID().toString(), i),
					(message) -> {
						message.getMessageProperties().setHeader("event-id", key);
						return message;
					});
		}
		await().atMost(DEADLINE)
			.untilAsserted(() -> assertThat(this.tally.outcomes("rabbit.header", Outcome.REPLAYED)).isEqualTo(2));
		assertThat(this.tally.outcomes("rabbit.header", Outcome.EXECUTED)).isEqualTo(1);
		assertThat(this.tally.effects(key)).isEqualTo(1);
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(readyMessages("header")).isZero());
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
	@Import({ Tally.class, Payments.class, Listeners.class })
	static class TestApplication {

		@Bean
		JacksonJsonMessageConverter messageConverter() {
			JacksonJsonMessageConverter converter = new JacksonJsonMessageConverter();
			// The listener's parameter type, never a class named by the message
			converter.setAlwaysConvertToInferredType(true);
			return converter;
		}

		@Bean
		Declarables queues(@Value("${test.queues}") String prefix) {
			List<Declarable> declarables = new ArrayList<>();
			for (String name : List.of("auto", "manual", "direct", "slow", "slow-manual", "crash", "reuse", "header",
					"retry")) {
				String queue = prefix + "." + name;
				declarables.add(QueueBuilder.nonDurable(queue)
					.deadLetterExchange("")
					.deadLetterRoutingKey(queue + ".dlq")
					.expires(QUEUE_EXPIRY_MILLIS)
					.build());
				declarables.add(QueueBuilder.nonDurable(queue + ".dlq").expires(QUEUE_EXPIRY_MILLIS).build());
			}
			return new Declarables(declarables);
		}

		// An application's own factory: the auto-configuration applies the rules to it
		// too
		@Bean
		DirectRabbitListenerContainerFactory directFactory(ConnectionFactory connectionFactory,
				JacksonJsonMessageConverter messageConverter) {
			DirectRabbitListenerContainerFactory factory = new DirectRabbitListenerContainerFactory();
			factory.setConnectionFactory(connectionFactory);
			factory.setMessageConverter(messageConverter);
			factory.setConsumersPerQueue(4);
			factory.setPrefetchCount(1);
			factory.setDefaultRequeueRejected(false);
			return factory;
		}

	}

	static class Tally implements IdempotencyListener {

		private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();

		private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

		private final Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();

		private final Map<String, List<Long>> deliveries = new ConcurrentHashMap<>();

		private final Map<String, CountDownLatch> slow = new ConcurrentHashMap<>();

		private final Map<String, Boolean> dying = new ConcurrentHashMap<>();

		private final AtomicInteger handledRedelivered = new AtomicInteger();

		private final AtomicInteger consumerFailures = new AtomicInteger();

		@EventListener
		void consumerFailed(ListenerContainerConsumerFailedEvent event) {
			this.consumerFailures.incrementAndGet();
		}

		int consumerFailures() {
			return this.consumerFailures.get();
		}

		@Override
		public void onOutcome(String name, Outcome outcome) {
			this.outcomes.computeIfAbsent(name + ":" + outcome, (k) -> new AtomicInteger()).incrementAndGet();
		}

		int outcomes(String name, Outcome outcome) {
			AtomicInteger count = this.outcomes.get(name + ":" + outcome);
			return (count != null) ? count.get() : 0;
		}

		void effect(String key) {
			this.effects.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
		}

		int effects(String key) {
			AtomicInteger count = this.effects.get(key);
			return (count != null) ? count.get() : 0;
		}

		void delivered(String id) {
			this.deliveries.computeIfAbsent(id, (k) -> new CopyOnWriteArrayList<>()).add(System.nanoTime());
		}

		List<Long> deliveries(String id) {
			return this.deliveries.getOrDefault(id, List.of());
		}

		void handled(String queue, boolean redelivered) {
			this.handled.computeIfAbsent(queue, (k) -> new AtomicInteger()).incrementAndGet();
			if (redelivered) {
				this.handledRedelivered.incrementAndGet();
			}
		}

		int handled(String queue) {
			AtomicInteger count = this.handled.get(queue);
			return (count != null) ? count.get() : 0;
		}

		int handledRedelivered() {
			return this.handledRedelivered.get();
		}

		CountDownLatch holdSlow(String id) {
			return this.slow.computeIfAbsent(id, (k) -> new CountDownLatch(1));
		}

		void dieMidWork(String id) {
			this.dying.put(id, true);
		}

		boolean shouldDie(String id) {
			return this.dying.remove(id) != null;
		}

	}

	static class Payments {

		private final Tally tally;

		Payments(Tally tally) {
			this.tally = tally;
		}

		@Idempotent(name = "rabbit.charge", key = "#event.id")
		public String charge(Event event) throws InterruptedException {
			// Work long enough for copies on other consumers to meet it in progress
			Thread.sleep(20);
			this.tally.effect(event.id());
			return "receipt-" + event.id();
		}

		@Idempotent(name = "rabbit.slow", key = "#event.id")
		public String slow(Event event) throws InterruptedException {
			this.tally.effect(event.id());
			assertThat(this.tally.holdSlow(event.id()).await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			return "slow-" + event.id();
		}

		@Idempotent(name = "rabbit.crash", key = "#event.id")
		public String crash(Event event, Runnable die) {
			this.tally.effect(event.id());
			if (this.tally.shouldDie(event.id())) {
				die.run();
				// The broker gives the unacknowledged message to the other consumer,
				// which
				// finds this attempt in progress
				await().atMost(DEADLINE).until(() -> this.tally.deliveries(event.id()).size() >= 2);
			}
			return "crash-" + event.id();
		}

		@Idempotent(name = "rabbit.reuse", key = "#event.id", payload = "#event")
		public String reserve(Event event) {
			this.tally.effect(event.id());
			return "reserved-" + event.id();
		}

	}

	static class Listeners {

		private final Payments payments;

		private final Tally tally;

		Listeners(Payments payments, Tally tally) {
			this.payments = payments;
			this.tally = tally;
		}

		@RabbitListener(queues = "${test.queues}.auto", concurrency = "4")
		void auto(Event event) throws InterruptedException {
			this.payments.charge(event);
			this.tally.handled("auto", false);
		}

		@RabbitListener(queues = "${test.queues}.manual", concurrency = "4", ackMode = "MANUAL")
		void manual(Event event, Channel channel, @Header(AmqpHeaders.DELIVERY_TAG) long tag)
				throws InterruptedException, IOException {
			this.payments.charge(event);
			channel.basicAck(tag, false);
			this.tally.handled("manual", false);
		}

		@RabbitListener(queues = "${test.queues}.direct", containerFactory = "directFactory")
		void direct(Event event) throws InterruptedException {
			this.payments.charge(event);
			this.tally.handled("direct", false);
		}

		@RabbitListener(queues = "${test.queues}.slow", concurrency = "2")
		void slow(Event event) throws InterruptedException {
			this.tally.delivered(event.id());
			this.payments.slow(event);
			this.tally.handled("slow", false);
		}

		@RabbitListener(queues = "${test.queues}.slow-manual", concurrency = "2", ackMode = "MANUAL")
		void slowManual(Event event, Channel channel, @Header(AmqpHeaders.DELIVERY_TAG) long tag)
				throws InterruptedException, IOException {
			this.tally.delivered(event.id());
			this.payments.slow(event);
			channel.basicAck(tag, false);
			this.tally.handled("slow-manual", false);
		}

		// A failure of its own first, then the event in progress elsewhere on the retry
		@RabbitListener(queues = "${test.queues}.retry")
		void retry(Event event) throws InterruptedException {
			this.tally.delivered(event.id());
			if (this.tally.shouldDie(event.id())) {
				throw new IllegalStateException("A transient failure of the listener's own");
			}
			this.payments.slow(event);
			this.tally.handled("retry", false);
		}

		@RabbitListener(queues = "${test.queues}.crash", concurrency = "2")
		// A redelivery, or the copy of one that met the event in progress, requeued to
		// the tail
		void crash(Event event, Channel channel, @Header(AmqpHeaders.REDELIVERED) boolean redelivered,
				@Header(name = "x-idempotency-requeues", required = false) @Nullable Integer requeues) {
			this.tally.delivered(event.id());
			this.payments.crash(event, () -> close(channel));
			this.tally.handled("crash", redelivered || requeues != null);
		}

		@RabbitListener(queues = "${test.queues}.reuse")
		void reuse(Event event) {
			this.tally.delivered(event.id());
			this.payments.reserve(event);
			this.tally.handled("reuse", false);
		}

		@RabbitListener(queues = "${test.queues}.header", concurrency = "3")
		@Idempotent(name = "rabbit.header", key = "#eventId")
		public void header(Event event, @Header("event-id") String eventId) throws InterruptedException {
			Thread.sleep(20);
			this.tally.effect(eventId);
		}

		// The consumer dies: its channel closes, and the broker requeues what it had not
		// acknowledged
		private static void close(Channel channel) {
			Channel target = (channel instanceof ChannelProxy proxy) ? proxy.getTargetChannel() : channel;
			try {
				target.close();
			}
			catch (IOException | TimeoutException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
