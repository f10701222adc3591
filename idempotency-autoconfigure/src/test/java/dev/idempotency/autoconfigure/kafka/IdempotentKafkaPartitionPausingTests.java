package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.kafka.IdempotencyKafkaErrorHandling;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ContainerPostProcessor;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.ContainerPausingBackOffHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.ListenerContainerPauseService;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.SeekUtils;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.support.converter.RecordMessageConverter;
import org.springframework.kafka.support.converter.StringJacksonJsonMessageConverter;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.kafka.test.utils.ContainerTestUtils;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How long the records of one partition wait while the consumer retries an in-progress
 * duplicate on another of its partitions, with each back-off handler: the auto-configured
 * error handler's (only the duplicate's partition paused), the sleeping one that
 * {@code idempotency.messaging.kafka-pause-partitions=false} gives (the consumer thread
 * sleeps), and spring-kafka's {@code ContainerPausingBackOffHandler} (every partition
 * paused). Each listener has one consumer for both partitions of its topic, with the
 * default in-progress back-off; the first attempt holds the key for {@link #HOLD}.
 */
@SpringBootTest(classes = IdempotentKafkaPartitionPausingTests.TestApplication.class,
		properties = { "spring.kafka.consumer.auto-offset-reset=earliest",
				"spring.kafka.consumer.fetch-max-wait=100ms" })
@EmbeddedKafka(partitions = 2,
		topics = { IdempotentKafkaPartitionPausingTests.HOLDER, IdempotentKafkaPartitionPausingTests.AUTO_CONFIGURED,
				IdempotentKafkaPartitionPausingTests.SLEEPING, IdempotentKafkaPartitionPausingTests.CONTAINER_PAUSING },
		brokerProperties = "group.initial.rebalance.delay.ms=0")
// Its broker connections and consumers would otherwise keep running, and take CPU from
// the test classes after it
@DirtiesContext
class IdempotentKafkaPartitionPausingTests {

	static final String HOLDER = "pausing-holder";

	// The auto-configured error handler, which pauses only the record's partition
	static final String AUTO_CONFIGURED = "auto-configured-pausing";

	static final String SLEEPING = "sleeping";

	static final String CONTAINER_PAUSING = "container-pausing";

	private static final Duration HOLD = Duration.ofSeconds(6);

	private static final int OTHERS = 20;

	private static final Log logger = LogFactory.getLog(IdempotentKafkaPartitionPausingTests.class);

	private static final JsonMapper json = JsonMapper.shared();

	@Autowired
	private KafkaTemplate<String, String> template;

	@Autowired
	private Ledger ledger;

	@Autowired
	private Charges charges;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-kafka-pausing-" + UUID.randomUUID() + ":");
		registry.add("spring.data.redis.url", () -> TestRedis.get().url());
	}

	@BeforeAll
	static void awaitAssignments(@Autowired KafkaListenerEndpointRegistry registry) {
		for (MessageListenerContainer container : registry.getListenerContainers()) {
			ContainerTestUtils.waitForAssignment(container, 2);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { AUTO_CONFIGURED, SLEEPING, CONTAINER_PAUSING })
	void recordsOfAnotherPartitionFlowWhileOnePartitionRetriesAnInProgressDuplicate(String topic) throws Exception {
		String id = "evt-" + UUID.randomUUID();
		PaymentEvent event = new PaymentEvent(id, 1);
		this.charges.gate(id);
		send(HOLDER, 0, event);
		await().atMost(Duration.ofSeconds(30)).until(() -> this.charges.started(id));
		long duplicate = send(topic, 0, event);
		await().atMost(Duration.ofSeconds(30)).until(() -> this.ledger.deliveries(topic, 0, duplicate) >= 1);
		long start = System.nanoTime();
		List<String> others = new ArrayList<>();
		for (int i = 0; i < OTHERS; i++) {
			String other = "evt-" + UUID.randomUUID();
			others.add(other);
			send(topic, 1, new PaymentEvent(other, 2));
		}
		try {
			await().atMost(HOLD).pollInterval(Duration.ofMillis(10)).until(() -> done(topic, others));
		}
		catch (org.awaitility.core.ConditionTimeoutException ex) {
			// Only measured: released below
		}
		long elapsed = Duration.ofNanos(System.nanoTime() - start).toMillis();
		boolean beforeRelease = done(topic, others);
		this.charges.gate(id).countDown();
		await().atMost(Duration.ofSeconds(30)).until(() -> done(topic, others));
		long total = Duration.ofNanos(System.nanoTime() - start).toMillis();
		logger.info(String.format(
				"%s: %d records of another partition took %d ms from the first send (%s) while "
						+ "one partition held an in-progress record for %d ms",
				topic, OTHERS, beforeRelease ? elapsed : total,
				beforeRelease ? "before the first attempt ended" : "only after the first attempt ended",
				HOLD.toMillis()));
		// The others are measured only: whether a poll hands them the other partition's
		// records before the duplicate's is up to the client
		if (AUTO_CONFIGURED.equals(topic)) {
			assertThat(beforeRelease).as("done while the first attempt held the key").isTrue();
			assertThat(elapsed).isLessThan(HOLD.toMillis() / 2);
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.ledger.effects(HOLDER, id) + this.ledger.effects(topic, id) == 1);
	}

	private boolean done(String topic, List<String> ids) {
		return ids.stream().allMatch((other) -> this.ledger.effects(topic, other) == 1);
	}

	private long send(String topic, int partition, PaymentEvent event) throws Exception {
		return this.template.send(new ProducerRecord<>(topic, partition, event.id(), json.writeValueAsString(event)))
			.get(10, TimeUnit.SECONDS)
			.getRecordMetadata()
			.offset();
	}

	static class PausingListeners {

		private final Ledger ledger;

		private final Charges charges;

		PausingListeners(Ledger ledger, Charges charges) {
			this.ledger = ledger;
			this.charges = charges;
		}

		@KafkaListener(id = HOLDER, topics = HOLDER)
		public void onHeld(PaymentEvent event) throws InterruptedException {
			this.charges.charge(HOLDER, event);
		}

		@KafkaListener(id = AUTO_CONFIGURED, topics = AUTO_CONFIGURED)
		public void onAutoConfigured(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
				@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
			this.ledger.delivered(AUTO_CONFIGURED, partition, offset);
			this.charges.charge(AUTO_CONFIGURED, event);
		}

		@KafkaListener(id = SLEEPING, topics = SLEEPING, containerPostProcessor = "sleeping")
		public void onSleeping(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
				@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
			this.ledger.delivered(SLEEPING, partition, offset);
			this.charges.charge(SLEEPING, event);
		}

		@KafkaListener(id = CONTAINER_PAUSING, topics = CONTAINER_PAUSING, containerPostProcessor = "containerPausing")
		public void onContainerPausing(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
				@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
			this.ledger.delivered(CONTAINER_PAUSING, partition, offset);
			this.charges.charge(CONTAINER_PAUSING, event);
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
		PausingListeners pausingListeners(Ledger ledger, Charges charges) {
			return new PausingListeners(ledger, charges);
		}

		@Bean
		RecordMessageConverter jsonConverter() {
			return new StringJacksonJsonMessageConverter();
		}

		@Bean
		ThreadPoolTaskScheduler resumer() {
			return new ThreadPoolTaskScheduler();
		}

		// What the README advised before: spring-kafka's handler, bounded by the lease
		@Bean
		ContainerPostProcessor<String, String, AbstractMessageListenerContainer<String, String>> containerPausing(
				IdempotencyProperties properties, KafkaListenerEndpointRegistry registry,
				ThreadPoolTaskScheduler resumer) {
			return (container) -> {
				DefaultErrorHandler handler = new DefaultErrorHandler(null, SeekUtils.DEFAULT_BACK_OFF,
						IdempotencyKafkaErrorHandling.backOffHandler(new ContainerPausingBackOffHandler(
								new ListenerContainerPauseService(registry, resumer))));
				IdempotencyKafkaErrorHandling.applyTo(handler,
						properties.getMessaging().getInProgressRetry().toBackOff());
				container.setCommonErrorHandler(handler);
			};
		}

		// The handler that idempotency.messaging.kafka-pause-partitions=false gives
		@Bean
		ContainerPostProcessor<String, String, AbstractMessageListenerContainer<String, String>> sleeping(
				IdempotencyProperties properties) {
			return (container) -> container.setCommonErrorHandler(IdempotencyKafkaErrorHandling.errorHandler(null,
					properties.getMessaging().getInProgressRetry().toBackOff()));
		}

	}

}
