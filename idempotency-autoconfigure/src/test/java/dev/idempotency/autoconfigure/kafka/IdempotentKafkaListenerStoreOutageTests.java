package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.autoconfigure.LoggedLines;
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
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
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
 * An idempotent listener while its Redis store is really down: the record is retried for
 * as long as the outage lasts, never committed before, and has its one effect once the
 * store is back. The outage is warned of once, each retry logged in one line at DEBUG.
 */
@SpringBootTest(classes = IdempotentKafkaListenerStoreOutageTests.TestApplication.class, properties = {
		"spring.kafka.consumer.auto-offset-reset=earliest", "spring.kafka.consumer.fetch-max-wait=100ms",
		"idempotency.redis.command-timeout=500ms", "idempotency.messaging.in-progress-retry.initial-interval=20ms",
		"idempotency.messaging.in-progress-retry.max-interval=200ms", "logging.level.dev.idempotency.kafka=debug" })
@EmbeddedKafka(partitions = 1, topics = IdempotentKafkaListenerStoreOutageTests.OUTAGES,
		brokerProperties = "group.initial.rebalance.delay.ms=0")
@ExtendWith(OutputCaptureExtension.class)
// Its broker and consumers would otherwise keep running, and take CPU from the test
// classes after it
@DirtiesContext
class IdempotentKafkaListenerStoreOutageTests {

	static final String OUTAGES = "outages";

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private static final RedisServer redis = TestRedis.startPrivateServer();

	@Autowired
	private KafkaTemplate<String, String> template;

	@Autowired
	private Ledger ledger;

	@Autowired
	private KafkaAdmin kafkaAdmin;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("idempotency.store", () -> "redis");
		registry.add("idempotency.key-prefix", () -> "idempotency-kafka-outage-" + UUID.randomUUID() + ":");
		registry.add("spring.data.redis.url", redis::url);
	}

	@AfterAll
	static void closeRedis() {
		redis.close();
	}

	@Test
	void recordMeetingAStoreOutageIsRetriedUntilTheStoreIsBackAndThenHasOneEffect(CapturedOutput output)
			throws Exception {
		String id = "evt-" + UUID.randomUUID();
		int from = output.length();
		redis.stop();
		long offset;
		try {
			offset = this.template
				.send(OUTAGES, 0, null, JsonMapper.shared().writeValueAsString(new PaymentEvent(id, 70)))
				.get(10, TimeUnit.SECONDS)
				.getRecordMetadata()
				.offset();
			// More deliveries than spring-kafka's default back-off allows before it gives
			// up
			await().atMost(DEADLINE).until(() -> this.ledger.deliveries(OUTAGES, 0, offset) >= 12);
			assertThat(committed()).isLessThanOrEqualTo(offset);
			assertThat(this.ledger.effects(OUTAGES, id)).isZero();
		}
		finally {
			redis.restart();
		}
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(committed()).isGreaterThan(offset));
		assertThat(this.ledger.effects(OUTAGES, id)).isOne();
		LoggedLines logged = LoggedLines.since(output, from);
		assertThat(logged.atWarnOrError("org.springframework.kafka")).isEmpty();
		assertThat(logged.from("dev.idempotency.kafka", "WARN")).singleElement()
			.asString()
			.contains("Delivering a record of listener 'outages' again in", "store is unavailable");
		// Every delivery but the last failed
		assertThat(logged.from("dev.idempotency.kafka", "DEBUG")
			.filter((line) -> line.contains("Delivering a record of listener 'outages' again in")))
			.hasSize(this.ledger.deliveries(OUTAGES, 0, offset) - 2);
	}

	private long committed() {
		try (CommittedOffsets offsets = new CommittedOffsets(this.kafkaAdmin)) {
			return offsets.of(OUTAGES, OUTAGES, 0);
		}
	}

	static class OutageListener {

		private final Ledger ledger;

		private final Charges charges;

		OutageListener(Ledger ledger, Charges charges) {
			this.ledger = ledger;
			this.charges = charges;
		}

		@KafkaListener(id = OUTAGES, topics = OUTAGES)
		public void onPayment(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
				@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
			this.ledger.delivered(OUTAGES, partition, offset);
			this.charges.charge(OUTAGES, event);
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
		OutageListener outageListener(Ledger ledger, Charges charges) {
			return new OutageListener(ledger, charges);
		}

		@Bean
		RecordMessageConverter jsonConverter() {
			return new StringJacksonJsonMessageConverter();
		}

	}

}
