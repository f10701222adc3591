package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.ContainerPostProcessor;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.support.converter.RecordMessageConverter;
import org.springframework.kafka.support.converter.StringJacksonJsonMessageConverter;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.kafka.test.utils.ContainerTestUtils;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Idempotent listeners on a real Kafka broker (KRaft, in the test JVM) with a real Redis
 * store, under duplicates, redeliveries, restarts, rebalances and crashed attempts: every
 * unique event has exactly one side effect, and every record is committed.
 */
@SpringBootTest(classes = IdempotentKafkaListenerTests.TestApplication.class, properties = {
		"spring.kafka.consumer.auto-offset-reset=earliest", "spring.kafka.consumer.properties.session.timeout.ms=10000",
		"spring.kafka.consumer.properties.heartbeat.interval.ms=1000",
		"spring.kafka.consumer.properties.metadata.max.age.ms=1000",
		// A redelivery after a seek waits for the fetch in flight: keep it short
		"spring.kafka.consumer.fetch-max-wait=100ms", "idempotency.messaging.in-progress-retry.initial-interval=20ms",
		"idempotency.messaging.in-progress-retry.max-interval=300ms" })
@EmbeddedKafka(partitions = 3,
		topics = { Listeners.PAYMENTS, Listeners.REUSE, Listeners.REUSE_DLT, Listeners.HEADERS, Listeners.OFFSETS,
				Listeners.OFFSET_HEADERS, Listeners.RESTARTS, Listeners.REBALANCE, Listeners.CRASHES,
				Listeners.BATCHES },
		brokerProperties = "group.initial.rebalance.delay.ms=0")
// Its broker and consumers would otherwise keep running, and take CPU from the test
// classes after it
@DirtiesContext
class IdempotentKafkaListenerTests {

	private static final Duration DEADLINE = Duration.ofSeconds(45);

	private static final JsonMapper json = JsonMapper.shared();

	private static final String RUN = UUID.randomUUID().toString();

	private final Random random = new Random();

	@Autowired
	private KafkaTemplate<String, String> template;

	@Autowired
	private KafkaListenerEndpointRegistry registry;

	@Autowired
	private Ledger ledger;

	@Autowired
	private Charges charges;

	@Autowired
	private Listeners listeners;

	@Autowired
	private IdempotencyStore store;

	private static CommittedOffsets offsets;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-kafka-test-" + RUN + ":");
		registry.add("spring.data.redis.url", () -> TestRedis.get().url());
	}

	@BeforeAll
	static void offsets(@Autowired KafkaAdmin kafkaAdmin) {
		offsets = new CommittedOffsets(kafkaAdmin);
	}

	// Every consumer group settled before the first record: a test holds a record in its
	// listener (a first attempt in progress), and a group still rebalancing then waits
	// for
	// that consumer's next poll, which comes only once the test has timed out
	@BeforeAll
	static void awaitAssignments(@Autowired KafkaListenerEndpointRegistry registry, @Autowired KafkaAdmin kafkaAdmin) {
		for (MessageListenerContainer container : registry.getListenerContainers()) {
			String[] topics = container.getContainerProperties().getTopics();
			if (container.isRunning() && topics != null) {
				int partitions = kafkaAdmin.describeTopics(topics)
					.values()
					.stream()
					.mapToInt((topic) -> topic.partitions().size())
					.sum();
				ContainerTestUtils.waitForAssignment(container, partitions);
			}
		}
	}

	@AfterAll
	static void closeOffsets() {
		offsets.close();
	}

	@Test
	void duplicatesAcrossPartitionsHaveOneEffectPerEventAndAreAllCommitted() throws Exception {
		List<String> ids = newIds(40);
		Map<Integer, Long> lastOffsets = new LinkedHashMap<>();
		for (String id : ids) {
			for (int copy = 0, copies = 1 + this.random.nextInt(3); copy < copies; copy++) {
				int partition = this.random.nextInt(3);
				lastOffsets.merge(partition, send(Listeners.PAYMENTS, partition, new PaymentEvent(id, 100), null),
						Math::max);
			}
		}
		offsets.awaitPast(Listeners.PAYMENTS, Listeners.PAYMENTS, lastOffsets);
		assertThat(ids).allSatisfy((id) -> assertThat(this.ledger.effects(Listeners.PAYMENTS, id)).isOne());
	}

	@Test
	void duplicateWhileTheFirstAttemptRunsIsRetriedAndCommittedOnlyAfterItReplays() throws Exception {
		String id = newIds(1).get(0);
		PaymentEvent event = new PaymentEvent(id, 250);
		this.charges.gate(id);
		long first = send(Listeners.PAYMENTS, 0, event, null);
		await().atMost(DEADLINE).until(() -> this.charges.started(id));
		long duplicate = send(Listeners.PAYMENTS, 1, event, null);
		// More deliveries than spring-kafka's default back-off allows before it gives up
		await().atMost(DEADLINE).until(() -> this.ledger.deliveries(Listeners.PAYMENTS, 1, duplicate) >= 12);
		assertThat(offsets.of(Listeners.PAYMENTS, Listeners.PAYMENTS, 1)).isLessThanOrEqualTo(duplicate);
		assertThat(this.ledger.effects(Listeners.PAYMENTS, id)).isZero();
		this.charges.gate(id).countDown();
		offsets.awaitPast(Listeners.PAYMENTS, Listeners.PAYMENTS, Map.of(0, first, 1, duplicate));
		assertThat(this.ledger.effects(Listeners.PAYMENTS, id)).isOne();
	}

	// Each of the ack modes Boot offers besides BATCH (above) and MANUAL (restarts)
	@ParameterizedTest
	@ValueSource(strings = { Listeners.RECORD_ACKS, Listeners.COUNT_ACKS, Listeners.TIME_ACKS,
			Listeners.MANUAL_IMMEDIATE_ACKS })
	void duplicateWhileTheFirstAttemptRunsIsNotCommittedInAnyAckMode(String topic) throws Exception {
		String id = newIds(1).get(0);
		PaymentEvent event = new PaymentEvent(id, 260);
		this.charges.gate(id);
		long first = send(Listeners.PAYMENTS, 0, event, null);
		await().atMost(DEADLINE).until(() -> this.charges.started(id));
		long duplicate = send(topic, 0, event, null);
		await().atMost(DEADLINE).until(() -> this.ledger.deliveries(topic, 0, duplicate) >= 12);
		assertThat(offsets.of(topic, topic, 0)).isLessThanOrEqualTo(duplicate);
		this.charges.gate(id).countDown();
		offsets.awaitPast(Listeners.PAYMENTS, Listeners.PAYMENTS, Map.of(0, first));
		offsets.awaitPast(topic, topic, Map.of(0, duplicate));
		assertThat(this.ledger.effects(Listeners.PAYMENTS, id) + this.ledger.effects(topic, id)).isOne();
	}

	@Test
	void batchListenerThatDoesNotNameTheRecordInProgressElsewhereNeverCommitsItBeforeItReplays() throws Exception {
		String id = newIds(1).get(0);
		PaymentEvent event = new PaymentEvent(id, 300);
		this.charges.gate(id);
		long first = send(Listeners.PAYMENTS, 0, event, null);
		await().atMost(DEADLINE).until(() -> this.charges.started(id));
		long duplicate = send(Listeners.BATCHES, 0, event, null);
		// More deliveries than spring-kafka's whole-batch fallback makes before it
		// recovers every record of the batch
		await().atMost(DEADLINE).until(() -> this.ledger.deliveries(Listeners.BATCHES, 0, duplicate) >= 12);
		assertThat(offsets.of(Listeners.BATCHES, Listeners.BATCHES, 0)).isLessThanOrEqualTo(duplicate);
		this.charges.gate(id).countDown();
		offsets.awaitPast(Listeners.PAYMENTS, Listeners.PAYMENTS, Map.of(0, first));
		offsets.awaitPast(Listeners.BATCHES, Listeners.BATCHES, Map.of(0, duplicate));
		assertThat(this.ledger.effects(Listeners.PAYMENTS, id) + this.ledger.effects(Listeners.BATCHES, id)).isOne();
	}

	@Test
	void keyReusedWithAnotherPayloadGoesToTheDeadLetterTopicWithoutRetries() throws Exception {
		String id = newIds(1).get(0);
		send(Listeners.REUSE, 2, new PaymentEvent(id, 10), null);
		await().atMost(DEADLINE).until(() -> this.ledger.effects(Listeners.REUSE, id) == 1);
		String reusedValue = json.writeValueAsString(new PaymentEvent(id, 99));
		long reused = send(Listeners.REUSE, 2, new PaymentEvent(id, 99), null);
		await().atMost(DEADLINE)
			.until(() -> this.listeners.deadLetters()
				.stream()
				.anyMatch((record) -> reusedValue.equals(record.value())));
		var deadLetter = this.listeners.deadLetters()
			.stream()
			.filter((record) -> reusedValue.equals(record.value()))
			.findFirst()
			.orElseThrow();
		assertThat(headerValues(deadLetter.headers().headers(KafkaHeaders.DLT_EXCEPTION_CAUSE_FQCN)))
			.anyMatch((value) -> value.contains("IdempotencyKeyReuseException"));
		offsets.awaitPast(Listeners.REUSE, Listeners.REUSE, Map.of(2, reused));
		assertThat(this.ledger.deliveries(Listeners.REUSE, 2, reused)).isOne();
		assertThat(this.ledger.effects(Listeners.REUSE, id)).isOne();
	}

	@Test
	void keyFromAHeaderTreatsTheSameHeaderWithAnotherPayloadAsADuplicate() throws Exception {
		List<String> ids = newIds(2);
		long last = 0;
		for (String id : ids) {
			send(Listeners.HEADERS, 0, new PaymentEvent(UUID.randomUUID().toString(), 1), id);
			last = send(Listeners.HEADERS, 0, new PaymentEvent(UUID.randomUUID().toString(), 2), id);
		}
		offsets.awaitPast(Listeners.HEADERS, Listeners.HEADERS, Map.of(0, last));
		assertThat(ids).allSatisfy((id) -> assertThat(this.ledger.effects(Listeners.HEADERS, id)).isOne());
	}

	@ParameterizedTest
	@ValueSource(strings = { Listeners.OFFSETS, Listeners.OFFSET_HEADERS })
	void keyFromTopicPartitionAndOffsetDeduplicatesRedeliveriesButNotProducerDuplicates(String topic) throws Exception {
		String id = newIds(1).get(0);
		PaymentEvent event = new PaymentEvent(id, 7);
		this.listeners.failAfterEffect(id);
		long first = send(topic, 1, event, null);
		offsets.awaitPast(topic, topic, Map.of(1, first));
		assertThat(this.ledger.deliveries(topic, 1, first)).isEqualTo(2);
		assertThat(this.ledger.effects(topic, id)).isOne();
		long resent = send(topic, 1, event, null);
		offsets.awaitPast(topic, topic, Map.of(1, resent));
		assertThat(this.ledger.effects(topic, id)).isEqualTo(2);
	}

	@Test
	void consumerStoppedWithoutCommittingAndRestartedRedeliversWithoutSecondEffects() throws Exception {
		List<String> ids = newIds(30);
		Map<Integer, Long> lastOffsets = new LinkedHashMap<>();
		int sent = 0;
		for (String id : ids) {
			for (int copy = 0, copies = 1 + this.random.nextInt(2); copy < copies; copy++, sent++) {
				int partition = this.random.nextInt(3);
				lastOffsets.merge(partition, send(Listeners.RESTARTS, partition, new PaymentEvent(id, 5), null),
						Math::max);
			}
		}
		MessageListenerContainer container = this.registry.getListenerContainer(Listeners.RESTARTS);
		await().atMost(DEADLINE).until(() -> effects(Listeners.RESTARTS, ids) >= 10);
		container.stop();
		int deliveredBeforeRestart = this.ledger.deliveries(Listeners.RESTARTS);
		for (int partition = 0; partition < 3; partition++) {
			assertThat(offsets.of(Listeners.RESTARTS, Listeners.RESTARTS, partition)).isZero();
		}
		this.listeners.acknowledging(true);
		container.start();
		offsets.awaitPast(Listeners.RESTARTS, Listeners.RESTARTS, lastOffsets);
		// Nothing was committed, so every record was delivered again after the restart
		assertThat(this.ledger.deliveries(Listeners.RESTARTS)).isGreaterThanOrEqualTo(sent + deliveredBeforeRestart);
		assertThat(ids).allSatisfy((id) -> assertThat(this.ledger.effects(Listeners.RESTARTS, id)).isOne());
	}

	@Test
	void containersJoiningAndLeavingTheGroupWhileProcessingKeepOneEffectPerEvent() throws Exception {
		this.charges.workTime(Duration.ofMillis(40));
		try {
			List<String> ids = newIds(45);
			Map<Integer, Long> lastOffsets = new LinkedHashMap<>();
			for (String id : ids) {
				for (int copy = 0, copies = 1 + this.random.nextInt(2); copy < copies; copy++) {
					int partition = this.random.nextInt(3);
					lastOffsets.merge(partition, send(Listeners.REBALANCE, partition, new PaymentEvent(id, 3), null),
							Math::max);
				}
			}
			MessageListenerContainer a = this.registry.getListenerContainer("rebalance-a");
			MessageListenerContainer b = this.registry.getListenerContainer("rebalance-b");
			a.start();
			await().atMost(DEADLINE).until(() -> effects(Listeners.REBALANCE, ids) >= 8);
			b.start();
			await().atMost(DEADLINE).until(() -> effects(Listeners.REBALANCE, ids) >= 20);
			a.stop();
			offsets.awaitPast(Listeners.REBALANCE, Listeners.REBALANCE, lastOffsets);
			b.stop();
			assertThat(ids).allSatisfy((id) -> assertThat(this.ledger.effects(Listeners.REBALANCE, id)).isOne());
		}
		finally {
			this.charges.workTime(Duration.ZERO);
		}
	}

	@Test
	void recordWhoseFirstAttemptCrashedIsRetriedUntilItsLeaseRunsOutThenTakenOver() throws Exception {
		String id = newIds(1).get(0);
		// A consumer of another instance took the record and died: its attempt holds the
		// key
		// for its lease, and it never committed the offset
		AcquireResult crashed = this.store.acquire(new RecordKey("kafka.crashes", id),
				new AcquireRequest("crashed-consumer", Duration.ofSeconds(3), Duration.ofMinutes(5), null));
		assertThat(crashed).isInstanceOf(AcquireResult.Acquired.class);
		long offset = send(Listeners.CRASHES, 0, new PaymentEvent(id, 42), null);
		await().atMost(DEADLINE).until(() -> this.ledger.deliveries(Listeners.CRASHES, 0, offset) >= 2);
		assertThat(this.ledger.effects(Listeners.CRASHES, id)).isZero();
		assertThat(offsets.of(Listeners.CRASHES, Listeners.CRASHES, 0)).isLessThanOrEqualTo(offset);
		offsets.awaitPast(Listeners.CRASHES, Listeners.CRASHES, Map.of(0, offset));
		assertThat(this.ledger.effects(Listeners.CRASHES, id)).isOne();
		assertThat(this.charges.fence(id)).isEqualTo(2);
	}

	private long send(String topic, int partition, PaymentEvent event, String eventIdHeader) throws Exception {
		ProducerRecord<String, String> record = new ProducerRecord<>(topic, partition, event.id(),
				json.writeValueAsString(event));
		if (eventIdHeader != null) {
			record.headers().add(Listeners.EVENT_ID_HEADER, eventIdHeader.getBytes());
		}
		return this.template.send(record).get(10, TimeUnit.SECONDS).getRecordMetadata().offset();
	}

	private int effects(String topic, List<String> ids) {
		return ids.stream().mapToInt((id) -> this.ledger.effects(topic, id)).sum();
	}

	private static List<String> headerValues(Iterable<Header> headers) {
		List<String> values = new ArrayList<>();
		headers.forEach((header) -> values.add(new String(header.value())));
		return values;
	}

	private static List<String> newIds(int count) {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			ids.add("evt-" + UUID.randomUUID());
		}
		return ids;
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
		Listeners listeners(Ledger ledger, Charges charges) {
			return new Listeners(ledger, charges);
		}

		@Bean
		RecordMessageConverter jsonConverter() {
			return new StringJacksonJsonMessageConverter();
		}

		@Bean
		ConsumerRecordRecoverer deadLetters(KafkaTemplate<Object, Object> template) {
			return new DeadLetterPublishingRecoverer(template);
		}

		@Bean
		ContainerPostProcessor<String, String, AbstractMessageListenerContainer<String, String>> recordAcks() {
			return (container) -> container.getContainerProperties().setAckMode(AckMode.RECORD);
		}

		@Bean
		ContainerPostProcessor<String, String, AbstractMessageListenerContainer<String, String>> countAcks() {
			return (container) -> {
				container.getContainerProperties().setAckMode(AckMode.COUNT);
				container.getContainerProperties().setAckCount(1);
			};
		}

		@Bean
		ContainerPostProcessor<String, String, AbstractMessageListenerContainer<String, String>> timeAcks() {
			return (container) -> {
				container.getContainerProperties().setAckMode(AckMode.TIME);
				container.getContainerProperties().setAckTime(1);
			};
		}

		@Bean
		ContainerPostProcessor<String, String, AbstractMessageListenerContainer<String, String>> manualImmediateAcks() {
			return (container) -> container.getContainerProperties().setAckMode(AckMode.MANUAL_IMMEDIATE);
		}

		@Bean
		ContainerPostProcessor<String, String, AbstractMessageListenerContainer<String, String>> manualAcks() {
			return (container) -> container.getContainerProperties().setAckMode(AckMode.MANUAL);
		}

	}

}
