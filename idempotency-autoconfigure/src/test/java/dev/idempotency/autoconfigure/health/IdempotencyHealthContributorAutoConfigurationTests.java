package dev.idempotency.autoconfigure.health;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.actuate.health.IdempotencyHealthIndicator;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Tests for {@link IdempotencyHealthContributorAutoConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyHealthContributorAutoConfigurationTests {

	private static final Duration DEADLINE = Duration.ofSeconds(15);

	private static final String EVICTION_WARNING = "The idempotency store's Redis has maxmemory-policy 'allkeys-lru'";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class,
				IdempotencyHealthContributorAutoConfiguration.class));

	@Test
	void registersIndicatorNamedForTheIdempotencyContributor() {
		this.contextRunner.withPropertyValues("idempotency.store=memory").run((context) -> {
			assertThat(context).hasSingleBean(IdempotencyHealthIndicator.class).hasBean("idempotencyHealthIndicator");
			Health health = context.getBean(IdempotencyHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("store", "memory");
		});
	}

	@Test
	void disabledByItsProperty() {
		this.contextRunner.withPropertyValues("management.health.idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyHealthIndicator.class));
	}

	@Test
	void disabledWithTheDefaultIndicators() {
		this.contextRunner.withPropertyValues("management.health.defaults.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyHealthIndicator.class));
	}

	@Test
	void enabledAloneWhenTheDefaultIndicatorsAreDisabled() {
		this.contextRunner
			.withPropertyValues("management.health.defaults.enabled=false",
					"management.health.idempotency.enabled=true")
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyHealthIndicator.class));
	}

	@Test
	void absentWhenIdempotencyIsDisabled() {
		this.contextRunner.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyHealthIndicator.class));
	}

	@Test
	void backsOffFromAnIndicatorOfTheSameName() {
		this.contextRunner
			.withBean("idempotencyHealthIndicator", HealthIndicator.class, () -> () -> Health.up().build())
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyHealthIndicator.class)
				.hasBean("idempotencyHealthIndicator"));
	}

	// Boot's factory waits 60 s for a reply: the store's own timeout must apply.
	@Test
	void redisStoreIsDownWithinTheStoresCommandTimeoutWhenRedisStops() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.host=" + server.host(),
						"spring.data.redis.port=" + server.port(), "idempotency.redis.command-timeout=500ms")
				.run((context) -> {
					HealthIndicator indicator = context.getBean(IdempotencyHealthIndicator.class);
					Health up = indicator.health();
					assertThat(up.getStatus()).isEqualTo(Status.UP);
					assertThat(up.getDetails()).containsEntry("store", "redis").containsKey("scripts");
					server.stop();
					Health down = assertTimeoutPreemptively(DEADLINE, () -> indicator.health());
					assertThat(down.getStatus()).isEqualTo(Status.DOWN);
					assertThat(down.getDetails()).containsEntry("store", "redis").containsKey("error");
				});
		}
	}

	@Test
	void callAndHealthOfAFrozenRedisFailWithinTheStoresCommandTimeout() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.host=" + server.host(),
						"spring.data.redis.port=" + server.port(), "idempotency.redis.command-timeout=500ms")
				.run((context) -> {
					assertThat(context.getBean(LettuceConnectionFactory.class)
						.getClientConfiguration()
						.getCommandTimeout()).isEqualTo(Duration.ofSeconds(60));
					IdempotentExecutor executor = context.getBean(IdempotentExecutor.class);
					HealthIndicator indicator = context.getBean(IdempotencyHealthIndicator.class);
					await().atMost(DEADLINE)
						.ignoreExceptions()
						.until(() -> indicator.health().getStatus().equals(Status.UP));
					server.freeze();
					try {
						assertTimeoutPreemptively(DEADLINE,
								() -> assertThatExceptionOfType(IdempotencyStoreException.class)
									.isThrownBy(() -> executor.execute("orders", "1", String.class, () -> "ran")));
						Health down = assertTimeoutPreemptively(DEADLINE, () -> indicator.health());
						assertThat(down.getStatus()).isEqualTo(Status.DOWN);
					}
					finally {
						server.thaw();
					}
					assertThat(executor.execute("orders", "1", String.class, () -> "ran")).isEqualTo("ran");
				});
		}
	}

	@Test
	void evictingPolicyIsLoggedOnceAtStartupWithoutAHealthRequest(CapturedOutput output) {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = TestRedis.connectionFactory(server.host(), server.port());
			try (RedisConnection connection = factory.getConnection()) {
				connection.serverCommands().setConfig("maxmemory", "100mb");
				connection.serverCommands().setConfig("maxmemory-policy", "allkeys-lru");
			}
			finally {
				factory.destroy();
			}
			this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.host=" + server.host(),
						"spring.data.redis.port=" + server.port())
				.run((context) -> {
					await().atMost(Duration.ofSeconds(30))
						.untilAsserted(() -> assertThat(output).contains(EVICTION_WARNING));
					Health health = context.getBean(IdempotencyHealthIndicator.class).health();
					assertThat(health.getStatus()).isEqualTo(Status.UP);
					assertThat(health.getDetails()).containsEntry("maxmemoryPolicy", "allkeys-lru")
						.containsKey("warning");
					assertThat(output.toString().split(EVICTION_WARNING, -1)).hasSize(2);
				});
		}
	}

}
