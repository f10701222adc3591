package dev.idempotency.autoconfigure.endpoint;

import org.junit.jupiter.api.Test;

import dev.idempotency.actuate.endpoint.IdempotencyEndpoint;
import dev.idempotency.actuate.endpoint.IdempotencyEndpointWebExtension;
import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link IdempotencyEndpointAutoConfiguration}.
 */
class IdempotencyEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(IdempotencyAutoConfiguration.class, IdempotencyEndpointAutoConfiguration.class))
		.withPropertyValues("idempotency.store=memory");

	@Test
	void registersEndpointAndWebExtensionWhenExposedOnTheWeb() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=idempotency")
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyEndpoint.class)
				.hasSingleBean(IdempotencyEndpointWebExtension.class));
	}

	@Test
	void registersEndpointWithoutWebExtensionWhenExposedOnJmxOnly() {
		this.contextRunner
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=idempotency")
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyEndpoint.class)
				.doesNotHaveBean(IdempotencyEndpointWebExtension.class));
	}

	@Test
	void absentWhenNotExposed() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyEndpoint.class));
	}

	@Test
	void absentWhenAccessIsNone() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=idempotency",
					"management.endpoint.idempotency.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyEndpoint.class));
	}

	@Test
	void absentWhenIdempotencyIsDisabled() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=idempotency", "idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyEndpoint.class));
	}

	@Test
	void backsOffFromAUserEndpoint() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=idempotency")
			.withUserConfiguration(CustomEndpointConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyEndpoint.class)
				.hasBean("customIdempotencyEndpoint"));
	}

	@Test
	void showsNoKeyPrefixForTheMemoryStore() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=idempotency")
			.run((context) -> assertThat(context.getBean(IdempotencyEndpoint.class).idempotency().store().keyPrefix())
				.isNull());
	}

	@Test
	void showsTheKeyPrefixForTheRedisStore() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=idempotency", "idempotency.store=redis",
					"idempotency.key-prefix=app:")
			.withBean(RedisConnectionFactory.class, () -> TestRedis.get().newConnectionFactory())
			.run((context) -> assertThat(context.getBean(IdempotencyEndpoint.class).idempotency().store())
				.satisfies((store) -> {
					assertThat(store.type()).isEqualTo("redis");
					assertThat(store.keyPrefix()).isEqualTo("app:");
				}));
	}

	@Configuration(proxyBeanMethods = false)
	static class CustomEndpointConfiguration {

		@Bean
		IdempotencyEndpoint customIdempotencyEndpoint(IdempotencyEngine engine, IdempotentOperationSource source) {
			return new IdempotencyEndpoint(engine, source, "custom:");
		}

	}

}
