package dev.idempotency.autoconfigure.aot;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.Idempotent;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.kafka.IdempotencyKafkaAutoConfiguration;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.kafka.support.converter.RecordMessageConverter;
import org.springframework.kafka.support.converter.StringJacksonJsonMessageConverter;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Idempotent} {@code @KafkaListener}s refreshed from AOT-generated code, on a
 * real Kafka broker (KRaft, in the test JVM) and a real Redis: an event delivered twice
 * has one side effect, whether the key navigates the {@link ConsumerRecord} or a
 * converted payload and whether the listener is synchronous or returns a
 * {@link CompletableFuture}; and the hints a native image needs for the record, the
 * payload and the result are gathered by the build.
 */
@CompileWithForkedClassLoader
class AotKafkaListenerTests {

	private static final Duration DEADLINE = Duration.ofSeconds(15);

	static final String RECORDS = "aot-records";

	static final String EVENTS = "aot-events";

	@Test
	void eventDeliveredTwiceHasOneEffectFromGeneratedCode() throws Exception {
		EmbeddedKafkaBroker broker = new EmbeddedKafkaKraftBroker(1, 1, RECORDS, EVENTS)
			.brokerProperty("group.initial.rebalance.delay.ms", "0");
		broker.afterPropertiesSet();
		try {
			Map<String, Object> properties = Map.of("spring.kafka.bootstrap-servers", broker.getBrokersAsString(),
					"spring.kafka.consumer.auto-offset-reset", "earliest", "spring.kafka.consumer.fetch-max-wait",
					"100ms", "idempotency.store", "redis", "spring.data.redis.host", TestRedis.get().host(),
					"spring.data.redis.port", TestRedis.get().port(), "idempotency.key-prefix",
					"aot-kafka-" + UUID.randomUUID() + ":");
			AotContexts.run(GenericApplicationContext::new, KafkaApplication.class, properties,
					(refreshed) -> assertOneEffectEach(refreshed));
		}
		finally {
			broker.destroy();
		}
	}

	@SuppressWarnings("unchecked")
	private void assertOneEffectEach(AotContexts.Refreshed<GenericApplicationContext> refreshed) {
		GenericApplicationContext context = refreshed.context();
		assertThat(context.getBean(IdempotencyStore.class).type()).isEqualTo("redis");
		KafkaTemplate<String, String> template = context.getBean(KafkaTemplate.class);
		Deliveries deliveries = context.getBean(Deliveries.class);
		Payments payments = context.getBean(Payments.class);
		String json = JsonMapper.shared().writeValueAsString(new PaymentEvent(new Customer("c-1"), 1250));
		for (int copy = 0; copy < 2; copy++) {
			template.send(RECORDS, "r-1", "refund r-1");
			template.send(EVENTS, "e-1", json);
		}
		await().atMost(DEADLINE).untilAsserted(() -> {
			assertThat(deliveries.succeeded(RECORDS)).isEqualTo(2);
			assertThat(deliveries.succeeded(EVENTS)).isEqualTo(2);
		});
		assertThat(payments.refunds()).isEqualTo(1);
		assertThat(payments.charges()).isEqualTo(1);
		// The factory is a proxy of the starter's; a native image has only the proxy
		// classes the build generated
		Class<?> factoryType = context.getBean("kafkaListenerContainerFactory").getClass();
		assertThat(factoryType.getName()).contains("$$SpringCGLIB$$");
		assertThat(refreshed.generatedAtBuildTime(factoryType))
			.as("%s generated at build time, among %s", factoryType.getName(), refreshed.generatedClasses())
			.isTrue();
		assertThat(refreshed.generatedAtBuildTime(payments.getClass())).isTrue();
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Payments.class, "refund"))
			.accepts(refreshed.hints());
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ConsumerRecord.class, "key"))
			.accepts(refreshed.hints());
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(ConsumerRecord.class)
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(refreshed.hints());
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Customer.class, "id"))
			.accepts(refreshed.hints());
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Receipt.class, "customer"))
			.accepts(refreshed.hints());
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ KafkaAutoConfiguration.class, DataRedisAutoConfiguration.class,
			JacksonAutoConfiguration.class, IdempotencyAutoConfiguration.class,
			IdempotencyKafkaAutoConfiguration.class })
	static class KafkaApplication {

		@Bean
		Payments payments() {
			return new Payments();
		}

		@Bean
		Deliveries deliveries() {
			return new Deliveries();
		}

		@Bean
		RecordMessageConverter jsonConverter() {
			return new StringJacksonJsonMessageConverter();
		}

	}

	static class Payments {

		// Read through methods: the bean is a proxy by subclass, whose own fields are
		// unset
		private final AtomicInteger refunds = new AtomicInteger();

		private final AtomicInteger charges = new AtomicInteger();

		public int refunds() {
			return this.refunds.get();
		}

		public int charges() {
			return this.charges.get();
		}

		@KafkaListener(id = RECORDS, topics = RECORDS)
		@Idempotent(key = "#record.key()")
		public void refund(ConsumerRecord<String, String> record) {
			this.refunds.incrementAndGet();
		}

		@KafkaListener(id = EVENTS, topics = EVENTS)
		@Idempotent(key = "#event.customer.id + ':' + #event.cents")
		public CompletableFuture<Receipt> charge(PaymentEvent event) {
			return CompletableFuture.supplyAsync(() -> {
				this.charges.incrementAndGet();
				return new Receipt(event.customer().id(), event.cents());
			});
		}

	}

	/**
	 * Counts the records each listener handled without failing: first attempts and
	 * replays alike, which the listener's own counters cannot see.
	 */
	static class Deliveries implements RecordInterceptor<Object, Object> {

		private final Map<String, AtomicInteger> succeeded = new ConcurrentHashMap<>();

		@Override
		public ConsumerRecord<Object, Object> intercept(ConsumerRecord<Object, Object> record,
				Consumer<Object, Object> consumer) {
			return record;
		}

		@Override
		public void success(ConsumerRecord<Object, Object> record, Consumer<Object, Object> consumer) {
			this.succeeded.computeIfAbsent(record.topic(), (topic) -> new AtomicInteger()).incrementAndGet();
		}

		int succeeded(String topic) {
			AtomicInteger count = this.succeeded.get(topic);
			return (count != null) ? count.get() : 0;
		}

	}

	record PaymentEvent(Customer customer, long cents) {
	}

	record Customer(String id) {
	}

	record Receipt(String customer, long cents) {
	}

}
