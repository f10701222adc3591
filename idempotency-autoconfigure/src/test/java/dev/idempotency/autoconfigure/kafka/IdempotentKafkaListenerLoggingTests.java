package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.autoconfigure.LoggedLines;
import dev.idempotency.kafka.IdempotencyKafkaErrorHandling;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.support.converter.RecordMessageConverter;
import org.springframework.kafka.support.converter.StringJacksonJsonMessageConverter;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What an operator reads while idempotent listeners retry duplicates, on a real broker
 * and Redis, with the auto-configured error handler and with an application's own handler
 * given the rules by {@code applyTo}: one DEBUG line per retry of a record whose key is
 * in progress elsewhere, and a WARN for a record handed to the recoverer.
 */
@SpringBootTest(classes = IdempotentKafkaListenerLoggingTests.TestApplication.class,
		properties = { "spring.kafka.consumer.auto-offset-reset=earliest", "spring.kafka.consumer.fetch-max-wait=100ms",
				"idempotency.messaging.in-progress-retry.initial-interval=20ms",
				"idempotency.messaging.in-progress-retry.max-interval=200ms",
				"logging.level.dev.idempotency.kafka=debug" })
@EmbeddedKafka(partitions = 1,
		topics = { IdempotentKafkaListenerLoggingTests.FIRST, IdempotentKafkaListenerLoggingTests.AUTO,
				IdempotentKafkaListenerLoggingTests.AUTO + "-dlt", IdempotentKafkaListenerLoggingTests.OWN,
				IdempotentKafkaListenerLoggingTests.OWN + "-dlt" },
		brokerProperties = "group.initial.rebalance.delay.ms=0")
@ExtendWith(OutputCaptureExtension.class)
// Its broker and consumers would otherwise keep running, and take CPU from the Kafka
// tests after it
@DirtiesContext
class IdempotentKafkaListenerLoggingTests {

	static final String FIRST = "logs-first";

	// Boot's factory, with the auto-configured handler
	static final String AUTO = "logs-auto";

	// A factory with the application's own handler
	static final String OWN = "logs-own";

	private static final Duration DEADLINE = Duration.ofSeconds(45);

	@Autowired
	private KafkaTemplate<String, String> template;

	@Autowired
	private Ledger ledger;

	@Autowired
	private Charges charges;

	private static CommittedOffsets offsets;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-kafka-logs-" + UUID.randomUUID() + ":");
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

	@ParameterizedTest
	@ValueSource(strings = { AUTO, OWN })
	void duplicateRetriedWhileTheFirstAttemptRunsLogsOneDebugLinePerRetryWithoutStackTraces(String topic,
			CapturedOutput output) throws Exception {
		String id = "evt-" + UUID.randomUUID();
		PaymentEvent event = new PaymentEvent(id, 10);
		this.charges.gate(id);
		long first = send(FIRST, event);
		await().atMost(DEADLINE).until(() -> this.charges.started(id));
		int from = output.length();
		long duplicate = send(topic, event);
		await().atMost(DEADLINE).until(() -> this.ledger.deliveries(topic, 0, duplicate) >= 6);
		this.charges.gate(id).countDown();
		offsets.awaitPast(FIRST, FIRST, Map.of(0, first));
		offsets.awaitPast(topic, topic, Map.of(0, duplicate));
		LoggedLines logged = LoggedLines.since(output, from);
		assertThat(logged.stackTraceLinesFrom("org.springframework.kafka", "org.apache.kafka", "dev.idempotency"))
			.isEmpty();
		assertThat(logged.atWarnOrError("org.springframework.kafka", "dev.idempotency")).isEmpty();
		assertThat(logged.from("dev.idempotency.kafka", "DEBUG")
			.filter((line) -> line.contains("'kafka.charges'") && line.contains(id)))
			.hasSize(this.ledger.deliveries(topic, 0, duplicate) - 1)
			.allMatch((line) -> line.contains("in progress") && line.contains(" again in "));
	}

	@ParameterizedTest
	@ValueSource(strings = { AUTO, OWN })
	void recordWithAReusedKeyIsDeadLetteredWithOneWarning(String topic, CapturedOutput output) throws Exception {
		String id = "evt-" + UUID.randomUUID();
		long used = send(topic, new PaymentEvent(id, 1));
		offsets.awaitPast(topic, topic, Map.of(0, used));
		int from = output.length();
		long reused = send(topic, new PaymentEvent(id, 2));
		offsets.awaitPast(topic, topic, Map.of(0, reused));
		assertThat(this.ledger.deliveries(topic, 0, reused)).isOne();
		assertThat(LoggedLines.since(output, from)
			.from("dev.idempotency.kafka", "WARN")
			.filter((line) -> line.contains(id))).singleElement()
			.asString()
			.contains("'kafka.charges'", topic + "-0@" + reused, "recoverer");
	}

	private long send(String topic, PaymentEvent event) throws Exception {
		return this.template.send(topic, 0, event.id(), JsonMapper.shared().writeValueAsString(event))
			.get(10, TimeUnit.SECONDS)
			.getRecordMetadata()
			.offset();
	}

	static class LoggingListeners {

		private final Ledger ledger;

		private final Charges charges;

		LoggingListeners(Ledger ledger, Charges charges) {
			this.ledger = ledger;
			this.charges = charges;
		}

		@KafkaListener(id = FIRST, topics = FIRST)
		public void first(PaymentEvent event) throws InterruptedException {
			this.charges.charge(FIRST, event);
		}

		@KafkaListener(id = AUTO, topics = AUTO)
		public void auto(PaymentEvent event, @Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
			this.ledger.delivered(AUTO, 0, offset);
			this.charges.charge(AUTO, event);
		}

		@KafkaListener(id = OWN, topics = OWN, containerFactory = "ownHandlerFactory")
		public void own(PaymentEvent event, @Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
			this.ledger.delivered(OWN, 0, offset);
			this.charges.charge(OWN, event);
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
		LoggingListeners loggingListeners(Ledger ledger, Charges charges) {
			return new LoggingListeners(ledger, charges);
		}

		@Bean
		RecordMessageConverter jsonConverter() {
			return new StringJacksonJsonMessageConverter();
		}

		@Bean
		ConsumerRecordRecoverer deadLetters(KafkaTemplate<Object, Object> template) {
			return new DeadLetterPublishingRecoverer(template);
		}

		// As the README shows it, with retries of the application's own exceptions
		@Bean
		ConcurrentKafkaListenerContainerFactory<Object, Object> ownHandlerFactory(
				ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
				ConsumerFactory<Object, Object> consumerFactory, KafkaTemplate<Object, Object> template,
				IdempotencyProperties properties) {
			ConcurrentKafkaListenerContainerFactory<Object, Object> factory = new ConcurrentKafkaListenerContainerFactory<>();
			configurer.configure(factory, consumerFactory);
			DefaultErrorHandler handler = new DefaultErrorHandler(new DeadLetterPublishingRecoverer(template),
					new FixedBackOff(0, 2), IdempotencyKafkaErrorHandling.backOffHandler());
			IdempotencyKafkaErrorHandling.applyTo(handler, properties.getMessaging().getInProgressRetry().toBackOff());
			factory.setCommonErrorHandler(handler);
			return factory;
		}

	}

}
