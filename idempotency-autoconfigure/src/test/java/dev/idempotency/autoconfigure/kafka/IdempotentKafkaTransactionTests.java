package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.BatchOutcome;
import dev.idempotency.Idempotent;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.kafka.IdempotencyKafkaBatches;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
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
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.kafka.test.utils.ContainerTestUtils;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An idempotent method that sends a record in its listener container's Kafka transaction,
 * on a real broker with a real Redis store: when the transaction rolls back after the
 * method returned, the redelivery runs it again, so that the output record is published
 * exactly once, as a {@code read_committed} consumer sees it.
 */
@SpringBootTest(classes = IdempotentKafkaTransactionTests.TestApplication.class,
		properties = { "spring.kafka.consumer.auto-offset-reset=earliest",
				"spring.kafka.consumer.isolation-level=read-committed", "spring.kafka.consumer.fetch-max-wait=100ms",
				"spring.kafka.producer.transaction-id-prefix=idempotency-tx-" })
@EmbeddedKafka(partitions = 1,
		topics = { IdempotentKafkaTransactionTests.ORDERS, IdempotentKafkaTransactionTests.BATCHES,
				IdempotentKafkaTransactionTests.SHIPPED },
		brokerProperties = { "group.initial.rebalance.delay.ms=0", "transaction.state.log.replication.factor=1",
				"transaction.state.log.min.isr=1" })
// Its broker connections and consumers would otherwise keep running, and take CPU from
// the test classes after it
@DirtiesContext
class IdempotentKafkaTransactionTests {

	static final String ORDERS = "tx-orders";

	static final String SHIPPED = "tx-shipped";

	static final String BATCHES = "tx-batches";

	private static final Duration DEADLINE = Duration.ofSeconds(45);

	private static final String RUN = UUID.randomUUID().toString();

	@Autowired
	private KafkaTemplate<String, String> template;

	@Autowired
	private KafkaAdmin kafkaAdmin;

	@Autowired
	private OrderListener listener;

	@Autowired
	private Shipments shipments;

	@Autowired
	private IdempotencyStore store;

	private static CommittedOffsets offsets;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-kafka-tx-" + RUN + ":");
		registry.add("spring.data.redis.url", () -> TestRedis.get().url());
	}

	@BeforeAll
	static void awaitAssignment(@Autowired KafkaListenerEndpointRegistry registry, @Autowired KafkaAdmin kafkaAdmin) {
		ContainerTestUtils.waitForAssignment(registry.getListenerContainer(ORDERS), 1);
		ContainerTestUtils.waitForAssignment(registry.getListenerContainer(BATCHES), 1);
		offsets = new CommittedOffsets(kafkaAdmin);
	}

	@AfterAll
	static void closeOffsets() {
		offsets.close();
	}

	@Test
	void outputOfAMethodWhoseContainerTransactionRolledBackAfterItReturnedIsPublishedOnceByTheRedelivery()
			throws Exception {
		String id = "order-" + UUID.randomUUID();
		this.listener.failAfterReturn(id);
		long offset = send(id);
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(offsets.of(ORDERS, ORDERS, 0)).isGreaterThan(offset));
		assertThat(this.listener.deliveries(id)).isEqualTo(2);
		assertThat(this.shipments.runs(id)).isEqualTo(2);
		assertThat(state(id)).isEqualTo(RecordState.COMPLETED);
		assertThat(committedShipments(id)).containsExactly("shipped " + id);
		long duplicate = send(id);
		await().atMost(DEADLINE)
			.untilAsserted(() -> assertThat(offsets.of(ORDERS, ORDERS, 0)).isGreaterThan(duplicate));
		assertThat(this.shipments.runs(id)).isEqualTo(2);
		assertThat(committedShipments(id)).containsExactly("shipped " + id);
	}

	// spring-kafka retries a failed batch inside its transaction: the retry replays what
	// the
	// transaction is about to commit, instead of waiting for records it holds itself
	@Test
	void outputsOfABatchRetriedInsideItsContainerTransactionArePublishedOnce() throws Exception {
		String first = "batch-" + UUID.randomUUID();
		String second = "batch-" + UUID.randomUUID();
		this.listener.failAfterReturn(second);
		long offset = this.template.executeInTransaction((operations) -> {
			operations.send(BATCHES, first, first);
			return operations.send(BATCHES, second, second);
		}).get(10, TimeUnit.SECONDS).getRecordMetadata().offset();
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(offsets.of(BATCHES, BATCHES, 0)).isGreaterThan(offset));
		assertThat(this.listener.batchDeliveries()).isEqualTo(2);
		assertThat(this.shipments.runs(first)).isOne();
		assertThat(this.shipments.runs(second)).isOne();
		assertThat(committedShipments(first)).containsExactly("shipped " + first);
		assertThat(committedShipments(second)).containsExactly("shipped " + second);
	}

	private long send(String id) throws Exception {
		return this.template.executeInTransaction((operations) -> operations.send(ORDERS, id, id))
			.get(10, TimeUnit.SECONDS)
			.getRecordMetadata()
			.offset();
	}

	private RecordState state(String id) {
		return this.store.read(new RecordKey("kafka.tx.ship", id)).map(IdempotencyRecord::state).orElseThrow();
	}

	// Every record of committed transactions, up to the last stable offset
	private List<String> committedShipments(String id) {
		Map<String, Object> properties = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
				this.kafkaAdmin.getConfigurationProperties().get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG),
				ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
				false);
		List<String> shipped = new ArrayList<>();
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(properties, new StringDeserializer(),
				new StringDeserializer())) {
			TopicPartition partition = new TopicPartition(SHIPPED, 0);
			consumer.assign(List.of(partition));
			consumer.seekToBeginning(List.of(partition));
			long end = consumer.endOffsets(List.of(partition)).get(partition);
			long deadline = System.nanoTime() + DEADLINE.toNanos();
			while (consumer.position(partition) < end && System.nanoTime() < deadline) {
				for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
					if (id.equals(record.key())) {
						shipped.add(record.value());
					}
				}
			}
			assertThat(consumer.position(partition)).as("position on " + partition).isGreaterThanOrEqualTo(end);
		}
		return shipped;
	}

	static class Shipments {

		private final KafkaTemplate<String, String> template;

		private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

		Shipments(KafkaTemplate<String, String> template) {
			this.template = template;
		}

		// Sent in the container's transaction: published only if it commits
		@Idempotent(name = "kafka.tx.ship", key = "#id")
		public void ship(String id) {
			this.runs.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
			this.template.send(SHIPPED, id, "shipped " + id);
		}

		// The batch's own work, in the container's transaction too
		String shipOne(String id) {
			this.runs.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
			this.template.send(SHIPPED, id, "shipped " + id);
			return id;
		}

		int runs(String id) {
			AtomicInteger count = this.runs.get(id);
			return (count != null) ? count.get() : 0;
		}

	}

	static class OrderListener {

		private final Shipments shipments;

		private final Set<String> failAfterReturn = ConcurrentHashMap.newKeySet();

		private final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();

		private final IdempotentExecutor executor;

		private final AtomicInteger batchDeliveries = new AtomicInteger();

		OrderListener(Shipments shipments, IdempotentExecutor executor) {
			this.shipments = shipments;
			this.executor = executor;
		}

		@KafkaListener(id = ORDERS, topics = ORDERS)
		public void onOrder(String id) {
			this.deliveries.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
			this.shipments.ship(id);
			if (this.failAfterReturn.remove(id)) {
				throw new IllegalStateException(
						"Failed after the idempotent method returned: the container's " + "transaction rolls back");
			}
		}

		@KafkaListener(id = BATCHES, topics = BATCHES, batch = "true")
		public void onBatch(List<String> ids) {
			this.batchDeliveries.incrementAndGet();
			List<BatchOutcome<String, String>> outcomes = this.executor.executeAll("kafka.tx.batch", ids, (id) -> id,
					String.class, this.shipments::shipOne);
			IdempotencyKafkaBatches.throwIfUnfinished("kafka.tx.batch", outcomes);
			if (ids.stream().anyMatch(this.failAfterReturn::remove)) {
				throw new IllegalStateException("Failed after the batch ran: the container's transaction rolls back");
			}
		}

		void failAfterReturn(String id) {
			this.failAfterReturn.add(id);
		}

		int batchDeliveries() {
			return this.batchDeliveries.get();
		}

		int deliveries(String id) {
			AtomicInteger count = this.deliveries.get(id);
			return (count != null) ? count.get() : 0;
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class TestApplication {

		@Bean
		Shipments shipments(KafkaTemplate<String, String> template) {
			return new Shipments(template);
		}

		@Bean
		OrderListener orderListener(Shipments shipments, IdempotentExecutor executor) {
			return new OrderListener(shipments, executor);
		}

	}

}
