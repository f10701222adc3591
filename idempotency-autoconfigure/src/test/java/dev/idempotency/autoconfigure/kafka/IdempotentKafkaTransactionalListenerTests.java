package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.autoconfigure.LoggedLines;
import dev.idempotency.kafka.IdempotencyKafkaAfterRollback;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ContainerPostProcessor;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
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
 * Idempotent listeners in Kafka transactions (container transactions from
 * {@code spring.kafka.producer.transaction-id-prefix}), on a real broker with a real
 * Redis store: after each rollback the after-rollback processor, the auto-configured one
 * or one built with {@link IdempotencyKafkaAfterRollback} that dead-letters and commits
 * what it recovers, delivers again a record whose key is in progress elsewhere or that
 * meets a store outage, however often, and never recovers it.
 */
@SpringBootTest(classes = IdempotentKafkaTransactionalListenerTests.TestApplication.class,
		properties = { "spring.kafka.producer.transaction-id-prefix=idempotency-tx-",
				"spring.kafka.consumer.auto-offset-reset=earliest", "spring.kafka.consumer.fetch-max-wait=100ms",
				"spring.kafka.consumer.isolation-level=read-committed", "idempotency.redis.command-timeout=200ms",
				"idempotency.messaging.in-progress-retry.initial-interval=20ms",
				"idempotency.messaging.in-progress-retry.max-interval=200ms" })
@EmbeddedKafka(partitions = 2,
		topics = { IdempotentKafkaTransactionalListenerTests.AUTO_CONFIGURED,
				IdempotentKafkaTransactionalListenerTests.RECOVERING, IdempotentKafkaTransactionalListenerTests.ASYNC,
				IdempotentKafkaTransactionalListenerTests.AUTO_CONFIGURED + "-dlt",
				IdempotentKafkaTransactionalListenerTests.RECOVERING + "-dlt" },
		brokerProperties = { "group.initial.rebalance.delay.ms=0", "transaction.state.log.replication.factor=1",
				"transaction.state.log.min.isr=1" })
@ExtendWith(OutputCaptureExtension.class)
// Its broker and consumers would otherwise keep running, and take CPU from the test
// classes after it
@DirtiesContext
class IdempotentKafkaTransactionalListenerTests {

	// The auto-configured after-rollback processor
	static final String AUTO_CONFIGURED = "tx-auto-configured";

	// One of the application's that dead-letters and commits what it recovers
	static final String RECOVERING = "tx-recovering";

	// A listener returning a CompletableFuture
	static final String ASYNC = "tx-async";

	private static final Duration DEADLINE = Duration.ofSeconds(45);

	// Past the ten deliveries after which spring-kafka's default after-rollback processor
	// recovers a record
	private static final int DELIVERIES = 12;

	private static final String AFTER_ROLLBACK = "org.springframework.kafka.listener.DefaultAfterRollbackProcessor";

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
	private Charges charges;

	@Autowired
	private TransactionalListeners listeners;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-kafka-tx-" + UUID.randomUUID() + ":");
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
	@ValueSource(strings = { AUTO_CONFIGURED, RECOVERING })
	void duplicateWhileTheFirstAttemptRunsIsDeliveredAgainAfterEachRollbackAndNeverRecovered(String topic,
			CapturedOutput output) throws Exception {
		int from = output.length();
		String id = newId();
		PaymentEvent event = new PaymentEvent(id, 250);
		this.charges.gate(id);
		long first = send(topic, 0, event);
		await().atMost(DEADLINE).until(() -> this.charges.started(id));
		long duplicate = send(topic, 1, event);
		await().atMost(DEADLINE).until(() -> this.ledger.deliveries(topic, 1, duplicate) >= DELIVERIES);
		assertThat(offsets.of(topic, topic, 1)).isLessThanOrEqualTo(duplicate);
		this.charges.gate(id).countDown();
		offsets.awaitPast(topic, topic, Map.of(0, first, 1, duplicate));
		assertThat(this.ledger.effects(topic, id)).isOne();
		assertThat(this.listeners.deadLetters(id)).isEmpty();
		assertThat(LoggedLines.since(output, from).atWarnOrError(AFTER_ROLLBACK)).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { AUTO_CONFIGURED, RECOVERING })
	void recordMeetingAStoreOutageIsDeliveredAgainAfterEachRollbackAndNeverRecovered(String topic,
			CapturedOutput output) throws Exception {
		int from = output.length();
		String id = newId();
		redis.stop();
		long offset;
		try {
			offset = send(topic, 0, new PaymentEvent(id, 70));
			await().atMost(DEADLINE).until(() -> this.ledger.deliveries(topic, 0, offset) >= DELIVERIES);
			assertThat(offsets.of(topic, topic, 0)).isLessThanOrEqualTo(offset);
		}
		finally {
			redis.restart();
		}
		offsets.awaitPast(topic, topic, Map.of(0, offset));
		assertThat(this.ledger.effects(topic, id)).isOne();
		assertThat(this.listeners.deadLetters(id)).isEmpty();
		assertThat(LoggedLines.since(output, from).atWarnOrError(AFTER_ROLLBACK)).isEmpty();
	}

	@Test
	void keyReusedWithAnotherPayloadGoesToTheDeadLetterTopicOnceAndIsCommitted() throws Exception {
		String id = newId();
		long first = send(RECOVERING, 0, new PaymentEvent(id, 10));
		offsets.awaitPast(RECOVERING, RECOVERING, Map.of(0, first));
		long reused = send(RECOVERING, 0, new PaymentEvent(id, 99));
		offsets.awaitPast(RECOVERING, RECOVERING, Map.of(0, reused));
		await().atMost(DEADLINE).until(() -> !this.listeners.deadLetters(id).isEmpty());
		assertThat(this.listeners.deadLetters(id)).singleElement()
			.satisfies((record) -> assertThat(record.topic()).isEqualTo(RECOVERING + "-dlt"));
		assertThat(this.ledger.deliveries(RECOVERING, 0, reused)).isOne();
		assertThat(this.ledger.effects(RECOVERING, id)).isOne();
	}

	@Test
	void recordsPolledWithAReusedKeyOfAnAsynchronousListenerGoOn() throws Exception {
		MessageListenerContainer container = this.registry.getListenerContainer(ASYNC);
		String id = newId();
		long first = send(ASYNC, 0, new PaymentEvent(id, 10));
		offsets.awaitPast(ASYNC, ASYNC, Map.of(0, first));
		// Both in the first poll after the restart
		container.stop();
		long reused = send(ASYNC, 0, new PaymentEvent(id, 99));
		String nextId = newId();
		long next = send(ASYNC, 0, new PaymentEvent(nextId, 11));
		container.start();
		offsets.awaitPast(ASYNC, ASYNC, Map.of(0, next));
		assertThat(this.ledger.deliveries(ASYNC, 0, reused)).isOne();
		assertThat(this.ledger.effects(ASYNC, id)).isOne();
		assertThat(this.ledger.effects(ASYNC, nextId)).isOne();
	}

	private long send(String topic, int partition, PaymentEvent event) throws Exception {
		String value = json.writeValueAsString(event);
		return this.template.executeInTransaction((operations) -> operations.send(topic, partition, event.id(), value))
			.get(10, TimeUnit.SECONDS)
			.getRecordMetadata()
			.offset();
	}

	private static String newId() {
		return "evt-" + UUID.randomUUID();
	}

	static class TransactionalListeners {

		private final Ledger ledger;

		private final Charges charges;

		private final List<ConsumerRecord<String, String>> deadLetters = new CopyOnWriteArrayList<>();

		TransactionalListeners(Ledger ledger, Charges charges) {
			this.ledger = ledger;
			this.charges = charges;
		}

		@KafkaListener(id = AUTO_CONFIGURED, topics = AUTO_CONFIGURED, concurrency = "2")
		public void autoConfigured(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
				@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
			this.ledger.delivered(AUTO_CONFIGURED, partition, offset);
			this.charges.charge(AUTO_CONFIGURED, event);
		}

		@KafkaListener(id = RECOVERING, topics = RECOVERING, concurrency = "2",
				containerPostProcessor = "recoveringAfterRollback")
		public void recovering(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
				@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
			this.ledger.delivered(RECOVERING, partition, offset);
			this.charges.charge(RECOVERING, event);
		}

		@KafkaListener(id = ASYNC, topics = ASYNC)
		public CompletableFuture<Void> async(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
				@Header(KafkaHeaders.OFFSET) long offset) {
			this.ledger.delivered(ASYNC, partition, offset);
			return CompletableFuture.runAsync(() -> {
				try {
					this.charges.charge(ASYNC, event);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			});
		}

		@KafkaListener(id = "tx-dead-letters", topics = { AUTO_CONFIGURED + "-dlt", RECOVERING + "-dlt" })
		public void deadLetters(ConsumerRecord<String, String> record) {
			this.deadLetters.add(record);
		}

		List<ConsumerRecord<String, String>> deadLetters(String id) {
			return this.deadLetters.stream().filter((record) -> record.value().contains(id)).toList();
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
		TransactionalListeners transactionalListeners(Ledger ledger, Charges charges) {
			return new TransactionalListeners(ledger, charges);
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
		ContainerPostProcessor<String, String, AbstractMessageListenerContainer<String, String>> recoveringAfterRollback(
				KafkaTemplate<Object, Object> template, IdempotencyProperties properties) {
			return (container) -> container.setAfterRollbackProcessor(
					IdempotencyKafkaAfterRollback.afterRollbackProcessor(new DeadLetterPublishingRecoverer(template),
							properties.getMessaging().getInProgressRetry().toBackOff(), template, true));
		}

	}

}
