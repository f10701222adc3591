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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.IdempotentExecutor;
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
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A batch listener that hands its batches to {@code executeAll} and its outcomes to
 * {@code IdempotencyKafkaBatches}, on a real Kafka broker with a real Redis store: one
 * effect per unique event, every record committed, a record in progress elsewhere never
 * committed before that attempt ends, a reused key dead-lettered.
 */
@SpringBootTest(classes = IdempotentKafkaBatchListenerTests.TestApplication.class,
		properties = { "spring.kafka.consumer.auto-offset-reset=earliest", "spring.kafka.consumer.fetch-max-wait=100ms",
				"idempotency.messaging.in-progress-retry.initial-interval=20ms",
				"idempotency.messaging.in-progress-retry.max-interval=300ms" })
@EmbeddedKafka(partitions = 3,
		topics = { BatchListener.BATCHES, BatchListener.BATCHES_DLT, BatchListener.ASYNC_BATCHES },
		brokerProperties = "group.initial.rebalance.delay.ms=0")
// Its broker and consumers would otherwise keep running, and take CPU from the test
// classes after it
@DirtiesContext
class IdempotentKafkaBatchListenerTests {

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
	private BatchListener listener;

	@Autowired
	private IdempotencyStore store;

	private static CommittedOffsets offsets;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-kafka-batch-test-" + RUN + ":");
		registry.add("spring.data.redis.url", () -> TestRedis.get().url());
	}

	@BeforeAll
	static void offsets(@Autowired KafkaAdmin kafkaAdmin) {
		offsets = new CommittedOffsets(kafkaAdmin);
	}

	@AfterAll
	static void closeOffsets() {
		offsets.close();
	}

	@AfterEach
	void stop() {
		container().stop();
		this.registry.getListenerContainer(BatchListener.ASYNC_BATCHES).stop();
	}

	@Test
	void batchesWithDuplicatesHaveOneEffectPerEventAndAreAllCommitted() throws Exception {
		List<String> ids = newIds(60);
		Map<Integer, Long> lastOffsets = new LinkedHashMap<>();
		for (String id : ids) {
			for (int copy = 0, copies = 1 + this.random.nextInt(3); copy < copies; copy++) {
				int partition = this.random.nextInt(3);
				lastOffsets.merge(partition, send(partition, new PaymentEvent(id, 100)), Math::max);
			}
		}
		container().start();
		offsets.awaitPast(BatchListener.BATCHES, BatchListener.BATCHES, lastOffsets);
		assertThat(this.listener.largestBatch()).isGreaterThan(1);
		assertThat(ids).allSatisfy((id) -> assertThat(this.ledger.effects(BatchListener.BATCHES, id)).isOne());
	}

	@Test
	void recordInProgressElsewhereIsRedeliveredAndNeverCommittedUntilThatAttemptEnds() throws Exception {
		List<String> ids = newIds(3);
		String held = ids.get(1);
		RecordKey key = new RecordKey(BatchListener.OPERATION, held);
		AcquireResult other = this.store.acquire(key,
				new AcquireRequest("other-instance", Duration.ofMinutes(1), Duration.ofMinutes(5), null));
		assertThat(other).isInstanceOf(AcquireResult.Acquired.class);
		long before = send(2, new PaymentEvent(ids.get(0), 1));
		long heldOffset = send(2, new PaymentEvent(held, 1));
		long after = send(2, new PaymentEvent(ids.get(2), 1));
		container().start();
		await().atMost(DEADLINE).until(() -> this.ledger.deliveries(BatchListener.BATCHES, 2, heldOffset) >= 5);
		assertThat(offsets.of(BatchListener.BATCHES, BatchListener.BATCHES, 2)).isEqualTo(heldOffset);
		assertThat(this.ledger.effects(BatchListener.BATCHES, ids.get(0))).isOne();
		assertThat(this.ledger.effects(BatchListener.BATCHES, held)).isZero();
		// The other attempt fails: this delivery has to do the work
		assertThat(this.store.release(key, "other-instance", ((AcquireResult.Acquired) other).fence(),
				Duration.ofMinutes(5)))
			.isTrue();
		offsets.awaitPast(BatchListener.BATCHES, BatchListener.BATCHES, Map.of(2, after));
		assertThat(before).isLessThan(heldOffset);
		assertThat(ids).allSatisfy((id) -> assertThat(this.ledger.effects(BatchListener.BATCHES, id)).isOne());
	}

	@Test
	void recordWithAReusedKeyGoesToTheDeadLetterTopicAndTheRestOfTheBatchIsDone() throws Exception {
		List<String> ids = newIds(3);
		String reusedId = ids.get(1);
		long first = send(1, new PaymentEvent(reusedId, 10));
		send(1, new PaymentEvent(ids.get(0), 1));
		String reusedValue = json.writeValueAsString(new PaymentEvent(reusedId, 99));
		long reused = send(1, new PaymentEvent(reusedId, 99));
		long last = send(1, new PaymentEvent(ids.get(2), 1));
		container().start();
		offsets.awaitPast(BatchListener.BATCHES, BatchListener.BATCHES, Map.of(1, last));
		assertThat(this.listener.deadLetters()).anyMatch((record) -> reusedValue.equals(record.value()));
		assertThat(this.ledger.deliveries(BatchListener.BATCHES, 1, reused)).isOne();
		assertThat(first).isLessThan(reused);
		assertThat(ids).allSatisfy((id) -> assertThat(this.ledger.effects(BatchListener.BATCHES, id)).isOne());
	}

	@Test
	void recordWithAReusedKeyInTheBatchOfAnAsynchronousListenerGoesOnWithTheRestOfTheBatch() throws Exception {
		String topic = BatchListener.ASYNC_BATCHES;
		List<String> ids = newIds(3);
		String reusedId = ids.get(1);
		send(topic, 1, new PaymentEvent(reusedId, 10));
		send(topic, 1, new PaymentEvent(ids.get(0), 1));
		long reused = send(topic, 1, new PaymentEvent(reusedId, 99));
		long last = send(topic, 1, new PaymentEvent(ids.get(2), 1));
		this.registry.getListenerContainer(topic).start();
		offsets.awaitPast(topic, topic, Map.of(1, last));
		assertThat(this.ledger.deliveries(topic, 1, reused)).isOne();
		assertThat(ids).allSatisfy((id) -> assertThat(this.ledger.effects(topic, id)).isOne());
	}

	// Another payload under a key in progress is a reuse at once: no retry can fix it
	@Test
	void recordWhoseKeyIsHeldWithAnotherPayloadGoesToTheDeadLetterTopicWithoutRetries() throws Exception {
		List<String> ids = newIds(2);
		String held = ids.get(0);
		this.store.acquire(new RecordKey(BatchListener.OPERATION, held), new AcquireRequest("other-instance",
				Duration.ofMinutes(1), Duration.ofMinutes(5), "another payload".getBytes()));
		String heldValue = json.writeValueAsString(new PaymentEvent(held, 1));
		long heldOffset = send(0, new PaymentEvent(held, 1));
		long last = send(0, new PaymentEvent(ids.get(1), 1));
		container().start();
		offsets.awaitPast(BatchListener.BATCHES, BatchListener.BATCHES, Map.of(0, last));
		assertThat(this.listener.deadLetters()).anyMatch((record) -> heldValue.equals(record.value()));
		assertThat(this.ledger.deliveries(BatchListener.BATCHES, 0, heldOffset)).isOne();
		assertThat(this.ledger.effects(BatchListener.BATCHES, held)).isZero();
		assertThat(this.ledger.effects(BatchListener.BATCHES, ids.get(1))).isOne();
	}

	private MessageListenerContainer container() {
		return this.registry.getListenerContainer(BatchListener.BATCHES);
	}

	private long send(int partition, PaymentEvent event) throws Exception {
		return send(BatchListener.BATCHES, partition, event);
	}

	private long send(String topic, int partition, PaymentEvent event) throws Exception {
		ProducerRecord<String, String> record = new ProducerRecord<>(topic, partition, event.id(),
				json.writeValueAsString(event));
		return this.template.send(record).get(10, TimeUnit.SECONDS).getRecordMetadata().offset();
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
		BatchListener batchListener(IdempotentExecutor executor, Ledger ledger) {
			return new BatchListener(executor, ledger);
		}

		@Bean
		ConsumerRecordRecoverer deadLetters(KafkaTemplate<Object, Object> template) {
			return new DeadLetterPublishingRecoverer(template);
		}

	}

}
