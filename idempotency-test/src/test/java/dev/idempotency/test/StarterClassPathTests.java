package dev.idempotency.test;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of what {@code idempotency-starter} puts on the class path of an application that
 * uses neither Kafka nor RabbitMQ (the class path of these tests: the starter and Spring
 * MVC): the integration modules, so that each switches on when the application adds its
 * technology, but not the technologies themselves, which would switch every integration
 * on in every application.
 */
class StarterClassPathTests {

	private static final String[] INTEGRATION_AUTO_CONFIGURATIONS = {
			"dev.idempotency.autoconfigure.kafka.IdempotencyKafkaAutoConfiguration",
			"dev.idempotency.autoconfigure.amqp.IdempotencyRabbitAutoConfiguration" };

	@Test
	void bringsTheIntegrationModulesWithoutKafkaOrRabbitMqClients() {
		ClassLoader classLoader = getClass().getClassLoader();
		assertThat(ClassUtils.isPresent("dev.idempotency.kafka.IdempotencyKafkaErrorHandling", classLoader)).isTrue();
		assertThat(ClassUtils.isPresent("dev.idempotency.amqp.IdempotencyRabbitListenerConfigurer", classLoader))
			.isTrue();
		assertThat(ClassUtils.isPresent("org.springframework.kafka.listener.DefaultErrorHandler", classLoader))
			.as("spring-kafka")
			.isFalse();
		assertThat(ClassUtils.isPresent("org.apache.kafka.clients.consumer.Consumer", classLoader)).as("kafka-clients")
			.isFalse();
		assertThat(ClassUtils.isPresent("org.springframework.amqp.rabbit.core.RabbitTemplate", classLoader))
			.as("spring-rabbit")
			.isFalse();
		assertThat(ClassUtils.isPresent("com.rabbitmq.client.ConnectionFactory", classLoader)).as("amqp-client")
			.isFalse();
	}

	@Test
	void applicationWithoutKafkaOrRabbitMqGetsNoListenerIntegration() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
					dev.idempotency.autoconfigure.IdempotencyAutoConfiguration.class))
			.withUserConfiguration(IntegrationAutoConfigurations.class, PaymentsConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBeanDefinitionNames())
					.noneMatch((name) -> name.contains("Kafka") || name.contains("Rabbit"));
				Payments payments = context.getBean(Payments.class);
				assertThat(payments.pay("p-1")).isEqualTo(payments.pay("p-1"));
			});
	}

	/**
	 * The listener integrations' auto-configurations, by name as an application finds
	 * them: their classes refer to the technologies this class path may lack.
	 */
	@Configuration(proxyBeanMethods = false)
	@Import(IntegrationAutoConfigurations.Selector.class)
	static class IntegrationAutoConfigurations {

		static class Selector implements ImportSelector {

			@Override
			public String[] selectImports(AnnotationMetadata metadata) {
				return INTEGRATION_AUTO_CONFIGURATIONS;
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PaymentsConfiguration {

		@Bean
		Payments payments() {
			return new Payments();
		}

	}

	static class Payments {

		private final AtomicInteger runs = new AtomicInteger();

		@Idempotent(key = "#id")
		public int pay(String id) {
			return this.runs.incrementAndGet();
		}

	}

}
