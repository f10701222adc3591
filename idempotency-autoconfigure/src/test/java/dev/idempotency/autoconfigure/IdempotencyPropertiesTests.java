package dev.idempotency.autoconfigure;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.Idempotent;
import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.autoconfigure.IdempotencyProperties.InProgressPolicy;
import dev.idempotency.autoconfigure.IdempotencyProperties.StoreType;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.OperationOverrides;
import dev.idempotency.engine.OperationSettings;
import dev.idempotency.engine.StoreFailurePolicy;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for binding {@link IdempotencyProperties} and resolving the settings of an
 * operation from them.
 */
class IdempotencyPropertiesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class));

	@Test
	void bindsEveryProperty() {
		this.contextRunner
			.withPropertyValues("idempotency.store=memory", "idempotency.key-prefix=app:",
					"idempotency.lock-timeout=45s", "idempotency.retention=3d", "idempotency.on-in-progress=wait",
					"idempotency.wait-timeout=4s", "idempotency.on-store-failure=proceed",
					"idempotency.max-key-length=80", "idempotency.max-result-size=64KB", "idempotency.advisor-order=7",
					"idempotency.memory.max-entries=500", "idempotency.redis.command-timeout=750ms",
					"idempotency.redis.replica-acks=2", "idempotency.redis.replica-ack-timeout=250ms")
			.run((context) -> {
				IdempotencyProperties properties = context.getBean(IdempotencyProperties.class);
				assertThat(properties.isEnabled()).isTrue();
				assertThat(properties.getStore()).isEqualTo(StoreType.MEMORY);
				assertThat(properties.getKeyPrefix()).isEqualTo("app:");
				assertThat(properties.getLockTimeout()).isEqualTo(Duration.ofSeconds(45));
				assertThat(properties.getRetention()).isEqualTo(Duration.ofDays(3));
				assertThat(properties.getOnInProgress()).isEqualTo(InProgressPolicy.WAIT);
				assertThat(properties.getWaitTimeout()).isEqualTo(Duration.ofSeconds(4));
				assertThat(properties.getOnStoreFailure()).isEqualTo(StoreFailurePolicy.PROCEED);
				assertThat(properties.getMaxKeyLength()).isEqualTo(80);
				assertThat(properties.getMaxResultSize()).isEqualTo(DataSize.ofKilobytes(64));
				assertThat(properties.getAdvisorOrder()).isEqualTo(7);
				assertThat(properties.getMemory().getMaxEntries()).isEqualTo(500);
				assertThat(properties.getRedis().getCommandTimeout()).isEqualTo(Duration.ofMillis(750));
				assertThat(properties.getRedis().getReplicaAcks()).isEqualTo(2);
				assertThat(properties.getRedis().getReplicaAckTimeout()).isEqualTo(Duration.ofMillis(250));
				assertThat(context.getBean(IdempotencyDefaults.class))
					.isEqualTo(
							new IdempotencyDefaults(
									new OperationSettings(Duration.ofSeconds(45), Duration.ofDays(3), OnInProgress.WAIT,
											Duration.ofSeconds(4)),
									StoreFailurePolicy.PROCEED, 80, 64 * 1024, Map.of()));
			});
	}

	@Test
	void bindsOperationsFromPropertiesWithAndWithoutBrackets() {
		this.contextRunner
			.withPropertyValues("idempotency.operations[PaymentService.charge].retention=5m",
					"idempotency.operations.Orders.place.lock-timeout=2m",
					"idempotency.operations.Orders.place.on-in-progress=wait",
					"idempotency.operations.simple.wait-timeout=3s")
			.run((context) -> assertThat(context.getBean(IdempotencyDefaults.class).operations())
				.containsOnlyKeys("PaymentService.charge", "Orders.place", "simple")
				.containsEntry("PaymentService.charge", new OperationOverrides(null, Duration.ofMinutes(5), null, null))
				.containsEntry("Orders.place",
						new OperationOverrides(Duration.ofMinutes(2), null, OnInProgress.WAIT, null))
				.containsEntry("simple", new OperationOverrides(null, null, null, Duration.ofSeconds(3))));
	}

	@Test
	void bindsOperationsFromYamlWithAndWithoutBrackets() {
		this.contextRunner.withInitializer((context) -> {
			try {
				new YamlPropertySourceLoader()
					.load("operations.yml", new ClassPathResource("operations.yml", getClass()))
					.forEach(context.getEnvironment().getPropertySources()::addFirst);
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		})
			.run((context) -> assertThat(context.getBean(IdempotencyDefaults.class).operations())
				.containsOnlyKeys("PaymentService.charge", "Orders.place", "simple")
				.containsEntry("PaymentService.charge", new OperationOverrides(null, Duration.ofMinutes(5), null, null))
				.containsEntry("Orders.place",
						new OperationOverrides(Duration.ofMinutes(2), null, OnInProgress.WAIT, null))
				.containsEntry("simple", new OperationOverrides(null, null, null, Duration.ofSeconds(3))));
	}

	@ParameterizedTest
	@ValueSource(strings = { "idempotency.operations.PaymentService.charge",
			"idempotency.operations[PaymentService.charge]" })
	void resolvesOperationConfigOverAnnotationOverGlobal(String operation) {
		this.contextRunner
			.withPropertyValues("idempotency.lock-timeout=30s", "idempotency.retention=24h",
					"idempotency.wait-timeout=10s", "idempotency.on-in-progress=reject", operation + ".lock-timeout=2m",
					operation + ".on-in-progress=wait")
			.withBean(PaymentService.class)
			.run((context) -> {
				context.getBean(PaymentService.class);
				OperationSettings charge = IdempotencyAutoConfigurationTests.settingsOf(context,
						"PaymentService.charge");
				assertThat(charge.lockTimeout()).isEqualTo(Duration.ofMinutes(2));
				assertThat(charge.retention()).isEqualTo(Duration.ofHours(7));
				assertThat(charge.onInProgress()).isEqualTo(OnInProgress.WAIT);
				assertThat(charge.waitTimeout()).isEqualTo(Duration.ofSeconds(10));
				OperationSettings refund = IdempotencyAutoConfigurationTests.settingsOf(context,
						"PaymentService.refund");
				assertThat(refund.lockTimeout()).isEqualTo(Duration.ofSeconds(7));
				assertThat(refund.retention()).isEqualTo(Duration.ofHours(24));
				assertThat(refund.onInProgress()).isEqualTo(OnInProgress.REJECT);
			});
	}

	@Test
	void failsStartupOnGlobalValueOutOfRange() {
		this.contextRunner.withPropertyValues("idempotency.lock-timeout=1ms")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("Invalid idempotency.* property: 'lockTimeout' must be at least 3ms"));
	}

	@Test
	void failsStartupOnMaxKeyLengthShorterThanDigest() {
		this.contextRunner.withPropertyValues("idempotency.max-key-length=10")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("Invalid idempotency.* property: 'maxKeyLength' must be at least 64"));
	}

	@Test
	void failsStartupOnOperationValueOutOfRange() {
		this.contextRunner.withPropertyValues("idempotency.operations.PaymentService.charge.retention=0s")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("Invalid property of idempotency.operations[PaymentService.charge]: "
						+ "'retention' must be positive"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "", " " })
	void failsStartupOnBlankKeyPrefix(String prefix) {
		this.contextRunner.withPropertyValues("idempotency.key-prefix=" + prefix)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(BindValidationException.class)
				.hasMessageContaining("idempotency.key-prefix")
				.hasMessageContaining("must not be empty"));
	}

	@Test
	void redisCommandTimeoutIsTwoSecondsByDefault() {
		this.contextRunner
			.run((context) -> assertThat(context.getBean(IdempotencyProperties.class).getRedis().getCommandTimeout())
				.isEqualTo(Duration.ofSeconds(2)));
	}

	@ParameterizedTest
	@ValueSource(strings = { "0s", "-1s" })
	void failsStartupOnRedisCommandTimeoutThatIsNotPositive(String timeout) {
		this.contextRunner.withPropertyValues("idempotency.redis.command-timeout=" + timeout)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(BindValidationException.class)
				.hasMessageContaining("idempotency.redis.command-timeout")
				.hasMessageContaining("must be at least one millisecond"));
	}

	@Test
	void failsStartupOnRedisCommandTimeoutTooLongToMeasure() {
		this.contextRunner.withPropertyValues("idempotency.redis.command-timeout=1000000d")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(BindValidationException.class)
				.hasMessageContaining("idempotency.redis.command-timeout")
				.hasMessageContaining("must be at most 36500 days"));
	}

	@Test
	void redisWaitsForNoReplicaByDefaultAndForOneSecondWhenItDoes() {
		this.contextRunner.run((context) -> {
			IdempotencyRedisProperties redis = context.getBean(IdempotencyProperties.class).getRedis();
			assertThat(redis.getReplicaAcks()).isZero();
			assertThat(redis.getReplicaAckTimeout()).isEqualTo(Duration.ofSeconds(1));
		});
	}

	@Test
	void failsStartupOnNegativeReplicaAcks() {
		this.contextRunner.withPropertyValues("idempotency.redis.replica-acks=-1")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(BindValidationException.class)
				.hasMessageContaining("idempotency.redis.replica-acks must not be negative"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "0s", "-1s", "500us" })
	void failsStartupOnReplicaAckTimeoutUnderOneMillisecond(String timeout) {
		this.contextRunner.withPropertyValues("idempotency.redis.replica-ack-timeout=" + timeout)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(BindValidationException.class)
				.hasMessageContaining("idempotency.redis.replica-ack-timeout must be at least one millisecond"));
	}

	@Test
	void failsStartupOnReplicaAckTimeoutTooLongToMeasure() {
		this.contextRunner.withPropertyValues("idempotency.redis.replica-ack-timeout=1000000d")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(BindValidationException.class)
				.hasMessageContaining("idempotency.redis.replica-ack-timeout must be at most 36500 days"));
	}

	@Test
	void failsStartupOnBlankKeyPrefixWithTheMemoryStoreToo() {
		this.contextRunner.withPropertyValues("idempotency.store=memory", "idempotency.key-prefix=")
			.run((context) -> assertThat(context).getFailure().hasStackTraceContaining("idempotency.key-prefix"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "orders:refund", "orders refund" })
	void failsStartupOnOperationNameThatNoOperationCanHave(String name) {
		Map<String, Object> properties = Map.of("idempotency.operations[" + name + "].retention", "1h");
		this.contextRunner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("test", properties)))
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("Invalid name of idempotency.operations[" + name + "]: Operation name '" + name
						+ "' must not contain"));
	}

	static class PaymentService {

		@Idempotent(key = "#id", lockTimeout = "7s", retention = "7h")
		public void charge(String id) {
		}

		@Idempotent(key = "#id", lockTimeout = "7s")
		public void refund(String id) {
		}

	}

}
