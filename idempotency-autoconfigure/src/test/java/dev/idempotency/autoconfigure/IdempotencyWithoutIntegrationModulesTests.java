package dev.idempotency.autoconfigure;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.Idempotent;
import dev.idempotency.actuate.endpoint.IdempotencyEndpoint;
import dev.idempotency.actuate.health.IdempotencyHealthIndicator;
import dev.idempotency.autoconfigure.endpoint.IdempotencyEndpointAutoConfiguration;
import dev.idempotency.autoconfigure.health.IdempotencyHealthContributorAutoConfiguration;
import dev.idempotency.autoconfigure.metrics.IdempotencyMetricsAutoConfiguration;
import dev.idempotency.autoconfigure.observation.IdempotencyObservationAutoConfiguration;
import dev.idempotency.metrics.IdempotencyMetrics;
import dev.idempotency.observation.ObservationIdempotencyObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of an application that has the auto-configuration and the core without the
 * integration modules (idempotency-redis, -web, -kafka, -amqp, -jdbc, -dynamodb), though
 * Spring Data Redis, Spring MVC, Spring Kafka, Spring AMQP and the AWS SDK are on its
 * class path: run by a Surefire execution of its own that leaves those jars out.
 */
@Tag("without-integration-modules")
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyWithoutIntegrationModulesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, IdempotencyAutoConfiguration.class))
		.withUserConfiguration(CountingPayments.PaymentsConfiguration.class);

	@Test
	void runsWithoutTheModulesOfTheTechnologiesItFinds() {
		ClassLoader classLoader = getClass().getClassLoader();
		assertThat(ClassUtils.isPresent("dev.idempotency.store.redis.RedisIdempotencyStore", classLoader)).isFalse();
		assertThat(ClassUtils.isPresent("dev.idempotency.web.RequestHandlers", classLoader)).isFalse();
		assertThat(ClassUtils.isPresent("dev.idempotency.kafka.IdempotencyKafkaErrorHandling", classLoader)).isFalse();
		assertThat(ClassUtils.isPresent("dev.idempotency.amqp.IdempotencyRabbitListenerConfigurer", classLoader))
			.isFalse();
		assertThat(
				ClassUtils.isPresent("org.springframework.data.redis.connection.RedisConnectionFactory", classLoader))
			.isTrue();
		assertThat(ClassUtils.isPresent("org.springframework.web.servlet.DispatcherServlet", classLoader)).isTrue();
		assertThat(ClassUtils.isPresent("org.springframework.kafka.listener.DefaultErrorHandler", classLoader))
			.isTrue();
		assertThat(ClassUtils.isPresent("org.springframework.amqp.rabbit.core.RabbitTemplate", classLoader)).isTrue();
	}

	@Test
	void keepsRecordsInMemoryAndSaysWhichModuleKeepsThemInRedis(CapturedOutput output) {
		this.contextRunner.withPropertyValues("spring.data.redis.host=redis.example").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(InMemoryIdempotencyStore.class);
			CountingPayments payments = context.getBean(CountingPayments.class);
			assertThat(payments.pay("p-1")).isEqualTo(payments.pay("p-1"));
			assertThat(payments.runs()).isEqualTo(1);
		});
		assertThat(output).contains("kept in memory").contains("add dev.idempotency:idempotency-redis");
	}

	@Test
	void redisStoreAskedForFailsStartupNamingTheModule() {
		this.contextRunner.withPropertyValues("idempotency.store=redis").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(FailureAnalyzedException.class)
				.hasMessageContaining("idempotency-redis");
		});
	}

	@Test
	void dynamoDbStoreAskedForFailsStartupNamingTheModuleThoughTheSdkIsThere() {
		assertThat(ClassUtils.isPresent("dev.idempotency.store.dynamodb.DynamoDbIdempotencyStore",
				getClass().getClassLoader()))
			.isFalse();
		assertThat(ClassUtils.isPresent("software.amazon.awssdk.services.dynamodb.DynamoDbClient",
				getClass().getClassLoader()))
			.isTrue();
		this.contextRunner.withPropertyValues("idempotency.store=dynamodb").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(FailureAnalyzedException.class)
				.hasMessageContaining("idempotency-dynamodb");
		});
	}

	@Test
	void webApplicationRunsIdempotentHandlersWithAKeyOfTheirOwn() {
		new WebApplicationContextRunner().withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class))
			.withUserConfiguration(IntegrationAutoConfigurations.class, HandlerConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(IdempotencyStore.class);
				assertThat(context.getBeansOfType(Object.class).values())
					.noneMatch((bean) -> bean.getClass().getName().startsWith("dev.idempotency.web."));
				Handler handler = context.getBean(Handler.class);
				assertThat(handler.pay("k")).isEqualTo(handler.pay("k"));
				assertThat(handler.runs()).isEqualTo(1);
			});
	}

	@Test
	void metricsObservationsEndpointAndHealthRunWithoutTheModules() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(IdempotencyMetricsAutoConfiguration.class,
					IdempotencyObservationAutoConfiguration.class, IdempotencyEndpointAutoConfiguration.class,
					IdempotencyHealthContributorAutoConfiguration.class))
			.withBean(SimpleMeterRegistry.class)
			.withBean(ObservationRegistry.class, ObservationRegistry::create)
			.withPropertyValues("management.endpoints.web.exposure.include=idempotency")
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.hasSingleBean(IdempotencyMetrics.class)
					.hasSingleBean(ObservationIdempotencyObserver.class)
					.hasSingleBean(IdempotencyEndpoint.class)
					.hasSingleBean(IdempotencyHealthIndicator.class);
				CountingPayments payments = context.getBean(CountingPayments.class);
				assertThat(payments.pay("p-1")).isEqualTo(payments.pay("p-1"));
				assertThat(context.getBean(SimpleMeterRegistry.class).find("idempotency.invocations").meters())
					.isNotEmpty();
				assertThat(context.getBean(IdempotencyEndpoint.class).idempotency()).isNotNull();
				Health health = context.getBean(IdempotencyHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("store", "memory");
			});
	}

	@Test
	void reactiveApplicationRunsIdempotentHandlersWithAKeyOfTheirOwn() {
		new ReactiveWebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class))
			.withUserConfiguration(IntegrationAutoConfigurations.class, HandlerConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(IdempotencyStore.class);
				assertThat(context.getBeansOfType(Object.class).values())
					.noneMatch((bean) -> bean.getClass().getName().startsWith("dev.idempotency.web."));
				Handler handler = context.getBean(Handler.class);
				assertThat(handler.pay("k")).isEqualTo(handler.pay("k"));
				assertThat(handler.runs()).isEqualTo(1);
			});
	}

	@Test
	void handlerWithoutAKeyFailsStartupNamingTheWebModule() {
		new WebApplicationContextRunner().withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class))
			.withUserConfiguration(IntegrationAutoConfigurations.class, KeylessHandlerConfiguration.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("idempotency-web");
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class KeylessHandlerConfiguration {

		@Bean
		KeylessHandler keylessHandler() {
			return new KeylessHandler();
		}

	}

	@RestController
	static class KeylessHandler {

		@PostMapping("/charges")
		@Idempotent
		public String charge() {
			return "charged";
		}

	}

	/**
	 * The integrations' auto-configurations, by name as an application finds them in
	 * {@code AutoConfiguration.imports}: read without loading their classes, which refer
	 * to the missing modules.
	 */
	@Configuration(proxyBeanMethods = false)
	@Import(IntegrationAutoConfigurations.Selector.class)
	static class IntegrationAutoConfigurations {

		static class Selector implements ImportSelector {

			@Override
			public String[] selectImports(AnnotationMetadata metadata) {
				return new String[] { "dev.idempotency.autoconfigure.web.servlet.IdempotencyWebMvcAutoConfiguration",
						"dev.idempotency.autoconfigure.web.reactive.IdempotencyWebFluxAutoConfiguration",
						"dev.idempotency.autoconfigure.kafka.IdempotencyKafkaAutoConfiguration",
						"dev.idempotency.autoconfigure.amqp.IdempotencyRabbitAutoConfiguration" };
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HandlerConfiguration {

		@Bean
		Handler handler() {
			return new Handler();
		}

	}

	@RestController
	static class Handler {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@PostMapping("/pay")
		@Idempotent(key = "#id")
		public int pay(String id) {
			return this.runs.incrementAndGet();
		}

	}

}
