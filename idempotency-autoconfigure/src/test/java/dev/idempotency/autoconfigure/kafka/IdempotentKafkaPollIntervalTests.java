package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
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
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ContainerPostProcessor;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.ConsumerAwareRebalanceListener;
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
 * A listener whose {@code max.poll.interval.ms} is shorter than the in-progress
 * back-off's {@code max-interval}: the consumer thread never sleeps past half of the poll
 * interval, so that the consumer stays in its group while it retries a record whose key
 * another attempt holds.
 */
@SpringBootTest(classes = IdempotentKafkaPollIntervalTests.TestApplication.class,
		properties = { "spring.kafka.consumer.auto-offset-reset=earliest", "spring.kafka.consumer.fetch-max-wait=100ms",
				"idempotency.messaging.in-progress-retry.initial-interval=1s",
				"idempotency.messaging.in-progress-retry.max-interval=5s" })
@EmbeddedKafka(partitions = 1, topics = IdempotentKafkaPollIntervalTests.SHORT_POLLS,
		brokerProperties = "group.initial.rebalance.delay.ms=0")
@ExtendWith(OutputCaptureExtension.class)
// Its broker connections and consumers would otherwise keep running, and take CPU from
// the test classes after it
@DirtiesContext
class IdempotentKafkaPollIntervalTests {

	static final String SHORT_POLLS = "short-polls";

	private static final Duration DEADLINE = Duration.ofSeconds(45);

	@Autowired
	private KafkaTemplate<String, String> template;

	@Autowired
	private Ledger ledger;

	@Autowired
	private IdempotencyStore store;

	@Autowired
	private AtomicInteger assignments;

	@Autowired
	private KafkaAdmin kafkaAdmin;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-kafka-polls-" + UUID.randomUUID() + ":");
		registry.add("spring.data.redis.url", () -> TestRedis.get().url());
	}

	@BeforeAll
	static void awaitAssignment(@Autowired KafkaListenerEndpointRegistry registry) {
		ContainerTestUtils.waitForAssignment(registry.getListenerContainer(SHORT_POLLS), 1);
	}

	@Test
	void recordRetriedWhileAnotherAttemptHoldsItsKeyNeverKeepsTheConsumerFromPollingPastItsInterval(
			CapturedOutput output) throws Exception {
		String id = "evt-" + UUID.randomUUID();
		AcquireResult other = this.store.acquire(new RecordKey("kafka.charges", id),
				new AcquireRequest("other-consumer", Duration.ofSeconds(7), Duration.ofMinutes(5), null));
		assertThat(other).isInstanceOf(AcquireResult.Acquired.class);
		int assignedBefore = this.assignments.get();
		long offset = this.template
			.send(new ProducerRecord<>(SHORT_POLLS, 0, id,
					JsonMapper.shared().writeValueAsString(new PaymentEvent(id, 5))))
			.get(10, TimeUnit.SECONDS)
			.getRecordMetadata()
			.offset();
		await().atMost(DEADLINE).until(() -> this.ledger.effects(SHORT_POLLS, id) == 1);
		try (CommittedOffsets offsets = new CommittedOffsets(this.kafkaAdmin)) {
			await().atMost(DEADLINE).until(() -> offsets.of(SHORT_POLLS, SHORT_POLLS, 0) > offset);
		}
		assertThat(output).doesNotContain("consumer poll timeout has expired");
		assertThat(this.assignments.get()).as("partitions assigned again after leaving the group")
			.isEqualTo(assignedBefore);
		assertThat(this.ledger.deliveries(SHORT_POLLS, 0, offset)).isGreaterThan(4);
		assertThat(output).contains("longer than half of max.poll.interval.ms (1500 ms) of listener 'short-polls'");
	}

	static class ShortPollsListener {

		private final Ledger ledger;

		private final Charges charges;

		ShortPollsListener(Ledger ledger, Charges charges) {
			this.ledger = ledger;
			this.charges = charges;
		}

		@KafkaListener(id = SHORT_POLLS, topics = SHORT_POLLS, properties = "max.poll.interval.ms=1500",
				containerPostProcessor = "countAssignments")
		public void onPayment(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
				@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
			this.ledger.delivered(SHORT_POLLS, partition, offset);
			this.charges.charge(SHORT_POLLS, event);
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
		ShortPollsListener shortPollsListener(Ledger ledger, Charges charges) {
			return new ShortPollsListener(ledger, charges);
		}

		@Bean
		RecordMessageConverter jsonConverter() {
			return new StringJacksonJsonMessageConverter();
		}

		@Bean
		AtomicInteger assignments() {
			return new AtomicInteger();
		}

		@Bean
		ContainerPostProcessor<String, String, AbstractMessageListenerContainer<String, String>> countAssignments(
				AtomicInteger assignments) {
			return (container) -> container.getContainerProperties()
				.setConsumerRebalanceListener(new ConsumerAwareRebalanceListener() {

					@Override
					public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
						if (!partitions.isEmpty()) {
							assignments.incrementAndGet();
						}
					}

				});
		}

	}

}
