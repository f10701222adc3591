package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

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
import org.springframework.kafka.listener.adapter.AsyncRepliesAware;
import org.springframework.kafka.support.converter.RecordMessageConverter;
import org.springframework.kafka.support.converter.StringJacksonJsonMessageConverter;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.kafka.test.utils.ContainerTestUtils;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener method that returns a {@code CompletableFuture} and runs on an executor
 * ({@code @Async}), on a real broker: its result reaches the container before it
 * completes, and before the advisor could wait for it (the advisor waits only on the
 * consumer thread, and {@code @Async}'s advice comes first). Its container must keep
 * spring-kafka's out-of-order commits, which commit the record only once the future
 * completes.
 */
@SpringBootTest(classes = IdempotentKafkaAsyncExecutionTests.TestApplication.class,
		properties = { "spring.kafka.consumer.auto-offset-reset=earliest",
				"spring.kafka.consumer.fetch-max-wait=100ms" })
@EmbeddedKafka(partitions = 1, topics = IdempotentKafkaAsyncExecutionTests.TOPIC,
		brokerProperties = "group.initial.rebalance.delay.ms=0")
@DirtiesContext
class IdempotentKafkaAsyncExecutionTests {

	static final String TOPIC = "async-executed";

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	// How long the record must stay uncommitted while its work is held: a container
	// that took the listener as synchronous commits it within milliseconds
	private static final Duration UNCOMMITTED = Duration.ofSeconds(3);

	private static final JsonMapper json = JsonMapper.shared();

	private static CommittedOffsets offsets;

	@Autowired
	private KafkaTemplate<String, String> template;

	@Autowired
	private KafkaListenerEndpointRegistry registry;

	@Autowired
	private Gate gate;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-kafka-async-execution-" + UUID.randomUUID() + ":");
		registry.add("spring.data.redis.url", () -> TestRedis.get().url());
	}

	@BeforeAll
	static void awaitAssignment(@Autowired KafkaListenerEndpointRegistry registry, @Autowired KafkaAdmin kafkaAdmin) {
		offsets = new CommittedOffsets(kafkaAdmin);
		ContainerTestUtils.waitForAssignment(registry.getListenerContainer(TOPIC), 1);
	}

	@AfterAll
	static void close() {
		offsets.close();
	}

	@Test
	void recordIsCommittedOnlyOnceTheWorkOfItsExecutedListenerCompletes() throws Exception {
		MessageListenerContainer container = this.registry.getListenerContainer(TOPIC);
		long offset;
		try {
			offset = this.template
				.send(new ProducerRecord<>(TOPIC, 0, "evt-1", json.writeValueAsString(new PaymentEvent("evt-1", 5))))
				.get(10, TimeUnit.SECONDS)
				.getRecordMetadata()
				.offset();
			assertThat(this.gate.started().await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
			await().during(UNCOMMITTED)
				.atMost(UNCOMMITTED.plusSeconds(10))
				.until(() -> offsets.of(TOPIC, TOPIC, 0) <= offset);
			assertThat(((AsyncRepliesAware) container.getContainerProperties().getMessageListener()).isAsyncReplies())
				.as("the container commits out of order")
				.isTrue();
		}
		finally {
			this.gate.release().countDown();
		}
		offsets.awaitPast(TOPIC, TOPIC, Map.of(0, offset));
	}

	// Apart from the listener, whose proxy has fields of its own
	record Gate(CountDownLatch started, CountDownLatch release) {

	}

	static class ExecutedListener {

		private final Gate gate;

		ExecutedListener(Gate gate) {
			this.gate = gate;
		}

		@KafkaListener(id = TOPIC, topics = TOPIC)
		@Async
		public CompletableFuture<Void> on(PaymentEvent event) throws InterruptedException {
			this.gate.started().countDown();
			if (!this.gate.release().await(60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Never released");
			}
			return CompletableFuture.completedFuture(null);
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableAsync
	static class TestApplication {

		@Bean
		Gate gate() {
			return new Gate(new CountDownLatch(1), new CountDownLatch(1));
		}

		@Bean
		ExecutedListener executedListener(Gate gate) {
			return new ExecutedListener(gate);
		}

		@Bean
		RecordMessageConverter jsonConverter() {
			return new StringJacksonJsonMessageConverter();
		}

	}

}
