package dev.idempotency.autoconfigure.amqp;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.amqp.autoconfigure.SimpleRabbitListenerContainerFactoryConfigurer;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener container factory of a class that cannot be proxied by class (a sealed one,
 * whose only subclasses are the permitted ones), on a real RabbitMQ and a real Redis: the
 * application starts, the factory is configured in place, and its containers follow the
 * rules of the advice chain. Before, the proxy failed the startup with an
 * {@code AopConfigException}.
 */
@SpringBootTest(classes = RabbitUnproxiableFactoryTests.TestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "idempotency.store=redis", "spring.rabbitmq.listener.simple.prefetch=1",
				"spring.rabbitmq.listener.simple.default-requeue-rejected=false" })
@DirtiesContext
class RabbitUnproxiableFactoryTests {

	private static final String QUEUES = "idempotency-sealed-" + UUID.randomUUID();

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	@Autowired
	private RabbitTemplate rabbit;

	@Autowired
	private SealedFactory factory;

	@Autowired
	private Work work;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		for (String property : TestRabbit.get().properties()) {
			String[] pair = property.split("=", 2);
			registry.add(pair[0], () -> pair[1]);
		}
		registry.add("spring.data.redis.host", () -> TestRedis.get().host());
		registry.add("spring.data.redis.port", () -> TestRedis.get().port());
		registry.add("idempotency.key-prefix", () -> QUEUES + ":");
		registry.add("test.queues", () -> QUEUES);
	}

	@Test
	void sealedFactoryIsConfiguredInPlaceAndItsContainersRejectAReusedKey() {
		assertThat(AopUtils.isAopProxy(this.factory)).isFalse();
		String id = UUID.randomUUID().toString();
		send(new Event(id, 1));
		await().atMost(DEADLINE).untilAsserted(() -> assertThat(this.work.effects(id)).isOne());
		send(new Event(id, 2));
		assertThat(this.rabbit.receive(QUEUES + ".sealed.dlq", DEADLINE.toMillis())).isNotNull();
		assertThat(this.work.effects(id)).isOne();
	}

	private void send(Event event) {
		this.rabbit.convertAndSend("", QUEUES + ".sealed", event);
	}

	record Event(String id, int amount) {
	}

	static sealed class SealedFactory extends SimpleRabbitListenerContainerFactory permits OnlySubclass {

	}

	static final class OnlySubclass extends SealedFactory {

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ Work.class, Listeners.class })
	static class TestApplication {

		@Bean
		JacksonJsonMessageConverter messageConverter() {
			JacksonJsonMessageConverter converter = new JacksonJsonMessageConverter();
			converter.setAlwaysConvertToInferredType(true);
			return converter;
		}

		@Bean
		Declarables queues(@Value("${test.queues}") String prefix) {
			String queue = prefix + ".sealed";
			return new Declarables(List.of(QueueBuilder.nonDurable(queue)
				.deadLetterExchange("")
				.deadLetterRoutingKey(queue + ".dlq")
				.expires(600_000)
				.build(), QueueBuilder.nonDurable(queue + ".dlq").expires(600_000).build()));
		}

		@Bean
		SealedFactory sealedFactory(SimpleRabbitListenerContainerFactoryConfigurer configurer,
				ConnectionFactory connectionFactory) {
			SealedFactory factory = new SealedFactory();
			configurer.configure(factory, connectionFactory);
			return factory;
		}

	}

	static class Work {

		private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

		@Idempotent(name = "rabbit.sealed", key = "#event.id", payload = "#event")
		public String charge(Event event) {
			this.effects.computeIfAbsent(event.id(), (k) -> new AtomicInteger()).incrementAndGet();
			return "receipt-" + event.id();
		}

		int effects(String id) {
			AtomicInteger count = this.effects.get(id);
			return (count != null) ? count.get() : 0;
		}

	}

	static class Listeners {

		private final Work work;

		Listeners(Work work) {
			this.work = work;
		}

		@RabbitListener(queues = "${test.queues}.sealed", containerFactory = "sealedFactory")
		void sealed(Event event) {
			this.work.charge(event);
		}

	}

}
