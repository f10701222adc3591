package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.support.converter.RecordMessageConverter;
import org.springframework.kafka.support.converter.StringJacksonJsonMessageConverter;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Listeners that return a {@code CompletableFuture}, a {@code CompletionStage} or a
 * {@code Mono}, on a real Kafka broker with a real Redis store: the rules of synchronous
 * listeners hold for their results. A record whose key is in progress elsewhere or that
 * meets a store outage is delivered again and never committed before its outcome is
 * known, also across a container restart; a reused key goes to the dead-letter topic.
 */
@SpringBootTest(classes = IdempotentKafkaAsyncListenerTests.TestApplication.class,
		properties = { "spring.kafka.consumer.auto-offset-reset=earliest", "spring.kafka.consumer.fetch-max-wait=100ms",
				"idempotency.redis.command-timeout=500ms",
				"idempotency.messaging.in-progress-retry.initial-interval=20ms",
				"idempotency.messaging.in-progress-retry.max-interval=200ms" })
@EmbeddedKafka(partitions = 2,
		topics = { AsyncListeners.FUTURE, AsyncListeners.IDEMPOTENT_FUTURE, AsyncListeners.IDEMPOTENT_STAGE,
				AsyncListeners.IDEMPOTENT_MONO, AsyncListeners.OUTAGE, AsyncListeners.NO_FUTURE, AsyncListeners.NO_MONO,
				AsyncListeners.FUTURE + "-dlt", AsyncListeners.IDEMPOTENT_FUTURE + "-dlt",
				AsyncListeners.IDEMPOTENT_STAGE + "-dlt", AsyncListeners.IDEMPOTENT_MONO + "-dlt" },
		brokerProperties = "group.initial.rebalance.delay.ms=0")
// Its broker and consumers would otherwise keep running, and take CPU from the test
// classes after it
@DirtiesContext
class IdempotentKafkaAsyncListenerTests {

	private static final Duration DEADLINE = Duration.ofSeconds(45);

	private static final JsonMapper json = JsonMapper.shared();

	private static final RedisServer redis = TestRedis.startPrivateServer();

	private static CommittedOffsets offsets;

	@Autowired
	private KafkaTemplate<String, String> template;

	@Autowired
	private KafkaListenerEndpointRegistry registry;

	@Autowired
	private Ledger ledger;

	@Autowired
	private AsyncCharges charges;

	@Autowired
	private AsyncListeners listeners;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-kafka-async-" + UUID.randomUUID() + ":");
		registry.add("spring.data.redis.url", redis::url);
	}

	@BeforeAll
	static void awaitAssignments(@Autowired KafkaListenerEndpointRegistry registry, @Autowired KafkaAdmin kafkaAdmin) {
		offsets = new CommittedOffsets(kafkaAdmin);
		SettledGroups.await(registry, 2);
	}

	@AfterAll
	static void close() {
		offsets.close();
		redis.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { AsyncListeners.FUTURE, AsyncListeners.IDEMPOTENT_FUTURE, AsyncListeners.IDEMPOTENT_STAGE,
			AsyncListeners.IDEMPOTENT_MONO })
	void duplicateWhileTheFirstAttemptRunsIsRetriedAndCommittedOnlyAfterItReplays(String topic) throws Exception {
		String id = newId();
		PaymentEvent event = new PaymentEvent(id, 250);
		this.charges.gate(id);
		long first;
		long duplicate;
		try {
			first = send(topic, 0, event);
			await().atMost(DEADLINE).until(() -> this.charges.started(id));
			duplicate = send(topic, 1, event);
			// Well past the second or so in which spring-kafka's asynchronous path
			// commits a failed record
			await().atMost(DEADLINE).until(() -> this.ledger.deliveries(topic, 1, duplicate) >= 10);
			assertThat(offsets.of(topic, topic, 1)).isLessThanOrEqualTo(duplicate);
			assertThat(offsets.of(topic, topic, 0)).isLessThanOrEqualTo(first);
			assertThat(this.ledger.effects(topic, id)).isZero();
		}
		finally {
			// Never leaves a consumer held at the gate for the tests after this one
			this.charges.gate(id).countDown();
		}
		offsets.awaitPast(topic, topic, Map.of(0, first, 1, duplicate));
		assertThat(this.ledger.effects(topic, id)).isOne();
	}

	@ParameterizedTest
	@ValueSource(strings = { AsyncListeners.FUTURE, AsyncListeners.IDEMPOTENT_FUTURE, AsyncListeners.IDEMPOTENT_STAGE,
			AsyncListeners.IDEMPOTENT_MONO })
	void keyReusedWithAnotherPayloadGoesToTheDeadLetterTopicWithoutRetries(String topic) throws Exception {
		String id = newId();
		long first = send(topic, 0, new PaymentEvent(id, 10));
		offsets.awaitPast(topic, topic, Map.of(0, first));
		assertThat(this.ledger.effects(topic, id)).isOne();
		String reusedValue = json.writeValueAsString(new PaymentEvent(id, 99));
		long reused = send(topic, 0, new PaymentEvent(id, 99));
		// Likely in the same poll: the records after a recovered one go on
		String nextId = newId();
		long next = send(topic, 0, new PaymentEvent(nextId, 11));
		await().atMost(DEADLINE)
			.until(() -> this.listeners.deadLetters()
				.stream()
				.anyMatch((record) -> reusedValue.equals(record.value())));
		ConsumerRecord<String, String> deadLetter = this.listeners.deadLetters()
			.stream()
			.filter((record) -> reusedValue.equals(record.value()))
			.findFirst()
			.orElseThrow();
		assertThat(deadLetter.topic()).isEqualTo(topic + "-dlt");
		assertThat(headerValues(deadLetter.headers().headers(KafkaHeaders.DLT_EXCEPTION_CAUSE_FQCN)))
			.anyMatch((value) -> value.contains("IdempotencyKeyReuseException"));
		offsets.awaitPast(topic, topic, Map.of(0, next));
		assertThat(this.ledger.deliveries(topic, 0, reused)).isOne();
		assertThat(this.ledger.effects(topic, id)).isOne();
		assertThat(this.ledger.effects(topic, nextId)).isOne();
	}

	@Test
	void recordsPolledWithARecordWhoseKeyIsReusedGoOn() throws Exception {
		String topic = AsyncListeners.OUTAGE;
		MessageListenerContainer container = this.registry.getListenerContainer(topic);
		String id = newId();
		long first = send(topic, 0, new PaymentEvent(id, 10));
		offsets.awaitPast(topic, topic, Map.of(0, first));
		// Both in the first poll after the restart
		container.stop();
		long reused = send(topic, 0, new PaymentEvent(id, 99));
		String nextId = newId();
		long next = send(topic, 0, new PaymentEvent(nextId, 11));
		container.start();
		offsets.awaitPast(topic, topic, Map.of(0, next));
		assertThat(this.ledger.deliveries(topic, 0, reused)).isOne();
		assertThat(this.ledger.effects(topic, id)).isOne();
		assertThat(this.ledger.effects(topic, nextId)).isOne();
	}

	@Test
	void recordMeetingAStoreOutageIsNeverCommittedAndHasItsOneEffectAfterARestart() throws Exception {
		String id = newId();
		String topic = AsyncListeners.OUTAGE;
		MessageListenerContainer container = this.registry.getListenerContainer(topic);
		redis.stop();
		long offset;
		try {
			offset = send(topic, 0, new PaymentEvent(id, 70));
			await().atMost(DEADLINE).until(() -> this.ledger.deliveries(topic, 0, offset) >= 6);
			assertThat(offsets.of(topic, topic, 0)).isLessThanOrEqualTo(offset);
			container.stop();
			assertThat(offsets.of(topic, topic, 0)).isLessThanOrEqualTo(offset);
			assertThat(this.ledger.effects(topic, id)).isZero();
		}
		finally {
			redis.restart();
		}
		container.start();
		offsets.awaitPast(topic, topic, Map.of(0, offset));
		assertThat(this.ledger.effects(topic, id)).isOne();
	}

	@ParameterizedTest
	@ValueSource(strings = { AsyncListeners.NO_FUTURE, AsyncListeners.NO_MONO })
	void recordWhoseListenerReturnsNoResultIsCommittedAndTheNextRecordsGoOn(String topic) throws Exception {
		String nothing = newId();
		String next = newId();
		long first = send(topic, 0, new PaymentEvent(nothing, 0));
		long second = send(topic, 0, new PaymentEvent(next, 12));
		offsets.awaitPast(topic, topic, Map.of(0, second));
		assertThat(this.ledger.deliveries(topic, 0, first)).isOne();
		assertThat(this.ledger.effects(topic, nothing)).isZero();
		assertThat(this.ledger.effects(topic, next)).isOne();
	}

	private long send(String topic, int partition, PaymentEvent event) throws Exception {
		return this.template.send(topic, partition, event.id(), json.writeValueAsString(event))
			.get(10, TimeUnit.SECONDS)
			.getRecordMetadata()
			.offset();
	}

	private static List<String> headerValues(Iterable<Header> headers) {
		List<String> values = new ArrayList<>();
		headers.forEach((header) -> values.add(new String(header.value())));
		return values;
	}

	private static String newId() {
		return "evt-" + UUID.randomUUID();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class TestApplication {

		@Bean
		Ledger ledger() {
			return new Ledger();
		}

		@Bean(destroyMethod = "shutdownNow")
		ExecutorService chargesExecutor() {
			return Executors.newFixedThreadPool(8);
		}

		@Bean
		AsyncCharges asyncCharges(Ledger ledger, ExecutorService chargesExecutor) {
			return new AsyncCharges(ledger, chargesExecutor);
		}

		@Bean
		AsyncListeners asyncListeners(AsyncCharges charges) {
			return new AsyncListeners(charges);
		}

		@Bean
		RecordMessageConverter jsonConverter() {
			return new StringJacksonJsonMessageConverter();
		}

		@Bean
		ConsumerRecordRecoverer deadLetters(KafkaTemplate<Object, Object> template) {
			return new DeadLetterPublishingRecoverer(template);
		}

		// Counts every delivery, also those an idempotent listener refuses before its
		// body
		// runs
		@Bean
		RecordInterceptor<Object, Object> deliveries(Ledger ledger) {
			return new RecordInterceptor<>() {

				@Override
				public ConsumerRecord<Object, Object> intercept(ConsumerRecord<Object, Object> record,
						Consumer<Object, Object> consumer) {
					ledger.delivered(record.topic(), record.partition(), record.offset());
					return record;
				}

			};
		}

	}

}
