package dev.idempotency.autoconfigure.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.BackOff;
import org.springframework.kafka.annotation.DltHandler;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.support.converter.RecordMessageConverter;
import org.springframework.kafka.support.converter.StringJacksonJsonMessageConverter;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.kafka.test.utils.ContainerTestUtils;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An idempotent {@code @RetryableTopic} listener on a real Kafka broker with a real Redis
 * store: a record whose key is in progress elsewhere, or that meets a store outage, is
 * retried in place until it can run, never sent on to the retry topic or the dead-letter
 * topic; a reused key goes straight to the dead-letter topic.
 */
@SpringBootTest(classes = IdempotentKafkaRetryTopicTests.TestApplication.class,
		properties = { "spring.kafka.consumer.auto-offset-reset=earliest", "spring.kafka.consumer.fetch-max-wait=100ms",
				"idempotency.redis.command-timeout=500ms",
				"idempotency.messaging.in-progress-retry.initial-interval=20ms",
				"idempotency.messaging.in-progress-retry.max-interval=200ms" })
@EmbeddedKafka(partitions = 1,
		topics = { IdempotentKafkaRetryTopicTests.RETRYABLE, IdempotentKafkaRetryTopicTests.HOLDER },
		brokerProperties = "group.initial.rebalance.delay.ms=0")
// Its broker and consumers would otherwise keep running, and take CPU from the test
// classes after it
@DirtiesContext
class IdempotentKafkaRetryTopicTests {

	static final String RETRYABLE = "retryable";

	static final String RETRY_TOPIC = RETRYABLE + "-retry";

	static final String HOLDER = "holder";

	private static final Duration DEADLINE = Duration.ofSeconds(45);

	private static final JsonMapper json = JsonMapper.shared();

	private static final RedisServer redis = TestRedis.startPrivateServer();

	@Autowired
	private KafkaTemplate<String, String> template;

	@Autowired
	private Ledger ledger;

	@Autowired
	private Charges charges;

	@Autowired
	private RetryableListener listener;

	@Autowired
	private KafkaAdmin kafkaAdmin;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-kafka-retry-topic-" + UUID.randomUUID() + ":");
		registry.add("spring.data.redis.url", redis::url);
	}

	@BeforeAll
	static void awaitAssignments(@Autowired KafkaListenerEndpointRegistry registry) {
		for (MessageListenerContainer container : registry.getListenerContainers()) {
			ContainerTestUtils.waitForAssignment(container, 1);
		}
	}

	@AfterAll
	static void closeRedis() {
		redis.close();
	}

	@Test
	void duplicateWhileTheFirstAttemptRunsIsRetriedInPlaceNeverInTheRetryTopicOrTheDeadLetterTopic() throws Exception {
		String id = "evt-" + UUID.randomUUID();
		PaymentEvent event = new PaymentEvent(id, 250);
		this.charges.gate(id);
		send(HOLDER, event);
		await().atMost(DEADLINE).until(() -> this.charges.started(id));
		long duplicate = send(RETRYABLE, event);
		// More deliveries than the three attempts of the retry topics
		await().atMost(DEADLINE).until(() -> this.ledger.deliveries(RETRYABLE, 0, duplicate) >= 6);
		assertThat(committed(RETRYABLE)).isLessThanOrEqualTo(duplicate);
		this.charges.gate(id).countDown();
		await().atMost(DEADLINE).until(() -> committed(RETRYABLE) > duplicate);
		assertThat(this.ledger.effects(HOLDER, id) + this.ledger.effects(RETRYABLE, id)).isOne();
		assertThat(this.listener.retryDeliveries(id)).isZero();
		assertThat(deadLetters(id)).isEmpty();
	}

	@Test
	void recordMeetingAStoreOutageIsRetriedInPlaceUntilTheStoreIsBackAndThenHasOneEffect() throws Exception {
		String id = "evt-" + UUID.randomUUID();
		long offset;
		redis.stop();
		try {
			offset = send(RETRYABLE, new PaymentEvent(id, 70));
			await().atMost(DEADLINE).until(() -> this.ledger.deliveries(RETRYABLE, 0, offset) >= 6);
			assertThat(committed(RETRYABLE)).isLessThanOrEqualTo(offset);
			assertThat(this.ledger.effects(RETRYABLE, id)).isZero();
		}
		finally {
			redis.restart();
		}
		await().atMost(DEADLINE).until(() -> committed(RETRYABLE) > offset);
		assertThat(this.ledger.effects(RETRYABLE, id)).isOne();
		assertThat(this.listener.retryDeliveries(id)).isZero();
		assertThat(deadLetters(id)).isEmpty();
	}

	@Test
	void keyReusedWithAnotherPayloadGoesStraightToTheDeadLetterTopic() throws Exception {
		String id = "evt-" + UUID.randomUUID();
		send(RETRYABLE, new PaymentEvent(id, 10));
		await().atMost(DEADLINE).until(() -> this.ledger.effects(RETRYABLE, id) == 1);
		long reused = send(RETRYABLE, new PaymentEvent(id, 99));
		await().atMost(DEADLINE).until(() -> !deadLetters(id).isEmpty());
		assertThat(deadLetters(id)).singleElement().satisfies((record) -> {
			assertThat(record.value()).contains("99");
			assertThat(header(record, KafkaHeaders.EXCEPTION_MESSAGE))
				.contains("was already used with a different payload");
		});
		assertThat(this.ledger.deliveries(RETRYABLE, 0, reused)).isOne();
		assertThat(this.listener.retryDeliveries(id)).isZero();
		assertThat(this.ledger.effects(RETRYABLE, id)).isOne();
	}

	@Test
	void failureOfTheApplicationGoesThroughTheRetryTopicsToTheDeadLetterTopic() throws Exception {
		String id = "evt-" + UUID.randomUUID();
		this.listener.failing.add(id);
		long offset = send(RETRYABLE, new PaymentEvent(id, 30));
		await().atMost(DEADLINE).until(() -> !deadLetters(id).isEmpty());
		assertThat(this.ledger.deliveries(RETRYABLE, 0, offset)).isOne();
		assertThat(this.listener.retryDeliveries(id)).isEqualTo(2);
		assertThat(this.ledger.effects(RETRYABLE, id)).isZero();
	}

	private List<ConsumerRecord<String, String>> deadLetters(String id) {
		return this.listener.deadLetters.stream().filter((record) -> record.value().contains(id)).toList();
	}

	private static String header(ConsumerRecord<String, String> record, String name) {
		byte[] value = (record.headers().lastHeader(name) != null) ? record.headers().lastHeader(name).value()
				: new byte[0];
		return new String(value, StandardCharsets.UTF_8);
	}

	private long send(String topic, PaymentEvent event) throws Exception {
		return this.template.send(new ProducerRecord<>(topic, 0, event.id(), json.writeValueAsString(event)))
			.get(10, TimeUnit.SECONDS)
			.getRecordMetadata()
			.offset();
	}

	private long committed(String topic) {
		try (CommittedOffsets offsets = new CommittedOffsets(this.kafkaAdmin)) {
			return offsets.of(topic, topic, 0);
		}
	}

	static class RetryableListener {

		private final Ledger ledger;

		private final Charges charges;

		final List<ConsumerRecord<String, String>> deadLetters = new CopyOnWriteArrayList<>();

		final Set<String> failing = ConcurrentHashMap.newKeySet();

		private final Map<String, AtomicInteger> retryDeliveries = new ConcurrentHashMap<>();

		RetryableListener(Ledger ledger, Charges charges) {
			this.ledger = ledger;
			this.charges = charges;
		}

		@RetryableTopic(attempts = "3", backOff = @BackOff(delay = 100))
		@KafkaListener(id = RETRYABLE, topics = RETRYABLE)
		public void onPayment(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_TOPIC) String topic,
				@Header(KafkaHeaders.RECEIVED_PARTITION) int partition, @Header(KafkaHeaders.OFFSET) long offset)
				throws InterruptedException {
			this.ledger.delivered(topic, partition, offset);
			if (topic.equals(RETRY_TOPIC)) {
				this.retryDeliveries.computeIfAbsent(event.id(), (id) -> new AtomicInteger()).incrementAndGet();
			}
			if (this.failing.contains(event.id())) {
				throw new IllegalStateException("Failed before the idempotent work");
			}
			this.charges.charge(RETRYABLE, event);
		}

		int retryDeliveries(String id) {
			AtomicInteger count = this.retryDeliveries.get(id);
			return (count != null) ? count.get() : 0;
		}

		@DltHandler
		public void onDeadLetter(ConsumerRecord<String, String> record) {
			this.deadLetters.add(record);
		}

		@KafkaListener(id = HOLDER, topics = HOLDER)
		public void onHeld(PaymentEvent event) throws InterruptedException {
			this.charges.charge(HOLDER, event);
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class TestApplication {

		@Bean
		Ledger ledger() {
			return new Ledger();
		}

		@Bean
		Charges charges(Ledger ledger) {
			return new Charges(ledger);
		}

		@Bean
		RetryableListener retryableListener(Ledger ledger, Charges charges) {
			return new RetryableListener(ledger, charges);
		}

		@Bean
		RecordMessageConverter jsonConverter() {
			return new StringJacksonJsonMessageConverter();
		}

	}

}
