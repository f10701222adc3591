package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.BatchOutcome;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.kafka.IdempotencyKafkaBatches;
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
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.support.converter.RecordMessageConverter;
import org.springframework.kafka.support.converter.StringJacksonJsonMessageConverter;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The auto-configured error handler pauses only the partition of a record whose key is in
 * progress elsewhere in the shapes beside a record listener outside transactions (see
 * {@code IdempotentKafkaPartitionPausingTests}): in container transactions, where the
 * after-rollback processor delivers the record again after each rollback, for a record
 * listener and for a batch listener whose {@code BatchListenerFailedException} names the
 * record. Each listener has one consumer for both partitions of its topic, with the
 * default in-progress back-off; another instance holds the key until the test releases
 * it. The records of the other partition are committed meanwhile.
 */
@SpringBootTest(classes = IdempotentKafkaTransactionalPartitionPausingTests.TestApplication.class,
		properties = { "spring.kafka.producer.transaction-id-prefix=idempotency-tx-pausing-",
				"spring.kafka.consumer.auto-offset-reset=earliest", "spring.kafka.consumer.fetch-max-wait=100ms",
				"spring.kafka.consumer.isolation-level=read-committed" })
@EmbeddedKafka(partitions = 2,
		topics = { IdempotentKafkaTransactionalPartitionPausingTests.RECORDS,
				IdempotentKafkaTransactionalPartitionPausingTests.BATCHES },
		brokerProperties = { "group.initial.rebalance.delay.ms=0", "transaction.state.log.replication.factor=1",
				"transaction.state.log.min.isr=1" })
@DirtiesContext
class IdempotentKafkaTransactionalPartitionPausingTests {

	static final String RECORDS = "tx-pausing-records";

	static final String BATCHES = "tx-pausing-batches";

	static final String BATCH_OPERATION = "kafka.tx-pausing-batches";

	private static final int OTHERS = 20;

	// Well below the held key's lease, and the several seconds that a consumer thread
	// sleeping through the default back-off holds the other partition
	private static final Duration WHILE_HELD = Duration.ofSeconds(10);

	private static final Duration DEADLINE = Duration.ofSeconds(45);

	private static final Log logger = LogFactory.getLog(IdempotentKafkaTransactionalPartitionPausingTests.class);

	private static final JsonMapper json = JsonMapper.shared();

	private static CommittedOffsets offsets;

	@Autowired
	private KafkaTemplate<String, String> template;

	@Autowired
	private KafkaListenerEndpointRegistry registry;

	@Autowired
	private Ledger ledger;

	@Autowired
	private IdempotencyStore store;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-kafka-tx-pausing-" + UUID.randomUUID() + ":");
		registry.add("spring.data.redis.url", () -> TestRedis.get().url());
	}

	@BeforeAll
	static void awaitAssignments(@Autowired KafkaListenerEndpointRegistry registry, @Autowired KafkaAdmin kafkaAdmin) {
		offsets = new CommittedOffsets(kafkaAdmin);
		SettledGroups.await(registry, 2);
	}

	@AfterAll
	static void close() {
		offsets.close();
	}

	@ParameterizedTest
	@ValueSource(strings = { RECORDS, BATCHES })
	void recordsOfAnotherPartitionAreCommittedWhileOnePartitionWaitsForAKeyInProgress(String topic) throws Exception {
		String held = "evt-" + UUID.randomUUID();
		RecordKey key = new RecordKey(RECORDS.equals(topic) ? Charges.OPERATION : BATCH_OPERATION, held);
		AcquireResult.Acquired other = (AcquireResult.Acquired) this.store.acquire(key,
				new AcquireRequest("other-instance", Duration.ofMinutes(1), Duration.ofMinutes(5), null));
		long heldOffset;
		long last = -1;
		long elapsed;
		try {
			heldOffset = send(topic, 0, new PaymentEvent(held, 1));
			await().atMost(DEADLINE).until(() -> this.ledger.deliveries(topic, 0, heldOffset) >= 1);
			// Paused for each delay of the back-off, the other partition not: a batch's
			// records of the other partition could be committed with a sleeping handler
			// too,
			// when they come before the waiting record
			MessageListenerContainer container = this.registry.getListenerContainer(topic);
			await().atMost(WHILE_HELD)
				.pollInterval(Duration.ofMillis(5))
				.until(() -> container.isPartitionPaused(new TopicPartition(topic, 0)));
			assertThat(container.isPartitionPaused(new TopicPartition(topic, 1))).isFalse();
			long start = System.nanoTime();
			for (int i = 0; i < OTHERS; i++) {
				last = send(topic, 1, new PaymentEvent("evt-" + UUID.randomUUID(), 2));
			}
			long lastOther = last;
			await().atMost(WHILE_HELD)
				.pollInterval(Duration.ofMillis(20))
				.until(() -> offsets.of(topic, topic, 1) > lastOther);
			elapsed = Duration.ofNanos(System.nanoTime() - start).toMillis();
			assertThat(offsets.of(topic, topic, 0)).isLessThanOrEqualTo(heldOffset);
			assertThat(this.ledger.effects(topic, held)).isZero();
		}
		finally {
			// The other attempt fails: the record's redelivery has to do the work
			this.store.release(key, "other-instance", other.fence(), Duration.ofMinutes(5));
		}
		logger.info(String.format("%s: %d records of another partition were committed %d ms from the first send "
				+ "while one partition waited for a key in progress", topic, OTHERS, elapsed));
		offsets.awaitPast(topic, topic, Map.of(0, heldOffset, 1, last));
		assertThat(this.ledger.effects(topic, held)).isOne();
	}

	private long send(String topic, int partition, PaymentEvent event) throws Exception {
		String value = json.writeValueAsString(event);
		return this.template.executeInTransaction((operations) -> operations.send(topic, partition, event.id(), value))
			.get(10, TimeUnit.SECONDS)
			.getRecordMetadata()
			.offset();
	}

	static class PausingListeners {

		private final Ledger ledger;

		private final Charges charges;

		private final IdempotentExecutor executor;

		PausingListeners(Ledger ledger, Charges charges, IdempotentExecutor executor) {
			this.ledger = ledger;
			this.charges = charges;
			this.executor = executor;
		}

		@KafkaListener(id = RECORDS, topics = RECORDS)
		public void onRecord(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
				@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
			this.ledger.delivered(RECORDS, partition, offset);
			this.charges.charge(RECORDS, event);
		}

		@KafkaListener(id = BATCHES, topics = BATCHES, batch = "true")
		public void onBatch(List<ConsumerRecord<String, String>> records) {
			records.forEach((record) -> this.ledger.delivered(BATCHES, record.partition(), record.offset()));
			List<PaymentEvent> events = records.stream()
				.map((record) -> json.readValue(record.value(), PaymentEvent.class))
				.toList();
			List<BatchOutcome<PaymentEvent, String>> outcomes = this.executor.executeAll(BATCH_OPERATION, events,
					PaymentEvent::id, (event) -> event, String.class, (event) -> {
						this.ledger.effect(BATCHES, event.id());
						return "receipt-" + event.id();
					});
			IdempotencyKafkaBatches.throwIfUnfinished(BATCH_OPERATION, outcomes);
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
		PausingListeners pausingListeners(Ledger ledger, Charges charges, IdempotentExecutor executor) {
			return new PausingListeners(ledger, charges, executor);
		}

		@Bean
		RecordMessageConverter jsonConverter() {
			return new StringJacksonJsonMessageConverter();
		}

	}

}
