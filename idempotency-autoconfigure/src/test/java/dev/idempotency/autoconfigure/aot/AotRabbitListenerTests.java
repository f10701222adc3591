package dev.idempotency.autoconfigure.aot;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.amqp.IdempotencyRabbitAutoConfiguration;
import dev.idempotency.autoconfigure.amqp.TestRabbit;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.core.QueueBuilder;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.support.converter.JacksonJsonMessageConverter;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Idempotent} {@code @RabbitListener}s refreshed from AOT-generated code, on a
 * real RabbitMQ and a real Redis: a message delivered twice has one side effect, whether
 * the listener replies (the copy gets the recorded reply) or not, and whether the key
 * navigates a converted payload or the {@link Message}; and the hints a native image
 * needs for the payload, the message and the reply are gathered by the build.
 */
@CompileWithForkedClassLoader
class AotRabbitListenerTests {

	private static final Duration DEADLINE = Duration.ofSeconds(15);

	@Test
	void messageDeliveredTwiceHasOneEffectFromGeneratedCode() {
		String queues = "aot-" + UUID.randomUUID();
		Map<String, Object> properties = new HashMap<>();
		for (String property : TestRabbit.get().properties()) {
			String[] pair = property.split("=", 2);
			properties.put(pair[0], pair[1]);
		}
		properties.putAll(Map.of("spring.rabbitmq.template.reply-timeout", "10s", "idempotency.store", "redis",
				"spring.data.redis.host", TestRedis.get().host(), "spring.data.redis.port", TestRedis.get().port(),
				"idempotency.key-prefix", queues + ":", "test.queues", queues));
		AotContexts.run(GenericApplicationContext::new, RabbitApplication.class, properties, (refreshed) -> {
			GenericApplicationContext context = refreshed.context();
			assertThat(context.getBean(IdempotencyStore.class).type()).isEqualTo("redis");
			RabbitTemplate rabbit = context.getBean(RabbitTemplate.class);
			Payments payments = context.getBean(Payments.class);
			PaymentEvent event = new PaymentEvent(new Customer("c-1"), 1250);
			// A reply to each copy: both deliveries were handled, the second replayed
			Receipt first = rabbit.convertSendAndReceiveAsType("", queues + ".charges", event,
					new ParameterizedTypeReference<Receipt>() {
					});
			Receipt replayed = rabbit.convertSendAndReceiveAsType("", queues + ".charges", event,
					new ParameterizedTypeReference<Receipt>() {
					});
			assertThat(replayed).isEqualTo(first).isEqualTo(new Receipt("c-1", 1250));
			assertThat(payments.charges()).isEqualTo(1);
			for (String id : new String[] { "r-1", "r-1", "r-2" }) {
				rabbit.send("", queues + ".refunds", refund(id));
			}
			// One consumer takes the queue in order: once the last is handled, so are
			// both copies before it
			await().atMost(DEADLINE).until(() -> payments.refunded("r-2"));
			assertThat(payments.refunds()).isEqualTo(2);
			// The factory is a proxy of the starter's; a native image has only the proxy
			// classes the build generated
			Class<?> factoryType = context.getBean("rabbitListenerContainerFactory").getClass();
			assertThat(factoryType.getName()).contains("$$SpringCGLIB$$");
			assertThat(refreshed.generatedAtBuildTime(factoryType))
				.as("%s generated at build time, among %s", factoryType.getName(), refreshed.generatedClasses())
				.isTrue();
			assertThat(refreshed.generatedAtBuildTime(payments.getClass())).isTrue();
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Payments.class, "charge"))
				.accepts(refreshed.hints());
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Customer.class, "id"))
				.accepts(refreshed.hints());
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Receipt.class, "customer"))
				.accepts(refreshed.hints());
			assertThat(RuntimeHintsPredicates.reflection()
				.onType(Message.class)
				.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(refreshed.hints());
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(MessageProperties.class, "getMessageId"))
				.accepts(refreshed.hints());
		});
	}

	private static Message refund(String id) {
		MessageProperties properties = new MessageProperties();
		properties.setMessageId(id);
		// JSON all the same: the container's converter reads every body, even for a
		// listener that takes the Message
		properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
		return new Message(("\"" + id + "\"").getBytes(StandardCharsets.UTF_8), properties);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ RabbitAutoConfiguration.class, DataRedisAutoConfiguration.class,
			JacksonAutoConfiguration.class, IdempotencyAutoConfiguration.class,
			IdempotencyRabbitAutoConfiguration.class })
	static class RabbitApplication {

		@Bean
		Payments payments() {
			return new Payments();
		}

		@Bean
		JacksonJsonMessageConverter messageConverter() {
			JacksonJsonMessageConverter converter = new JacksonJsonMessageConverter();
			// The listener's parameter type, never a class named by the message
			converter.setAlwaysConvertToInferredType(true);
			return converter;
		}

		@Bean
		Declarables queues(@Value("${test.queues}") String prefix) {
			return new Declarables(QueueBuilder.nonDurable(prefix + ".charges").autoDelete().build(),
					QueueBuilder.nonDurable(prefix + ".refunds").autoDelete().build());
		}

	}

	static class Payments {

		// Read through methods: the bean is a proxy by subclass, whose own fields are
		// unset
		private final AtomicInteger charges = new AtomicInteger();

		private final AtomicInteger refunds = new AtomicInteger();

		private final Map<String, Boolean> refunded = new ConcurrentHashMap<>();

		public int charges() {
			return this.charges.get();
		}

		public int refunds() {
			return this.refunds.get();
		}

		public boolean refunded(String id) {
			return this.refunded.containsKey(id);
		}

		@RabbitListener(queues = "${test.queues}.charges")
		@Idempotent(key = "#event.customer.id + ':' + #event.cents", payload = "#event")
		public Receipt charge(PaymentEvent event) {
			this.charges.incrementAndGet();
			return new Receipt(event.customer().id(), event.cents());
		}

		@RabbitListener(queues = "${test.queues}.refunds")
		@Idempotent(key = "#message.messageProperties.messageId")
		public void refund(Message message) {
			this.refunds.incrementAndGet();
			this.refunded.put(message.getMessageProperties().getMessageId(), true);
		}

	}

	record PaymentEvent(Customer customer, long cents) {
	}

	record Customer(String id) {
	}

	record Receipt(String customer, long cents) {
	}

}
