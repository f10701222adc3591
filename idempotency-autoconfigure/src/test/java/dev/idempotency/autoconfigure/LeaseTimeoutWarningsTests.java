package dev.idempotency.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.Idempotent;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the startup warnings of {@link LeaseTimeoutWarnings}: a Redis timeout longer
 * than half an operation's lock timeout is named with the setting the lock timeout comes
 * from, and the application starts all the same. No connection is made.
 */
@ExtendWith(OutputCaptureExtension.class)
class LeaseTimeoutWarningsTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class, DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=redis.internal");

	@Test
	void replicaAckTimeoutLongerThanHalfAnAnnotatedLockTimeoutIsNamedWithTheAnnotation(CapturedOutput output) {
		this.contextRunner.withBean(Payments.class)
			.withPropertyValues("idempotency.redis.replica-acks=1", "idempotency.redis.replica-ack-timeout=1s")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("Operation 'Payments.charge': idempotency.redis.replica-ack-timeout (1000 ms) "
				+ "is longer than half its lock timeout (1500 ms, from @Idempotent(lockTimeout) on Payments.charge)")
			.contains(
					"Raise @Idempotent(lockTimeout) on Payments.charge or lower idempotency.redis.replica-ack-timeout")
			.doesNotContain("Operation 'Payments.refund'");
	}

	@Test
	void commandTimeoutIsCheckedAgainstTheGlobalAndTheConfiguredLockTimeouts(CapturedOutput output) {
		this.contextRunner.withBean(Payments.class)
			.withPropertyValues("idempotency.lock-timeout=3s", "idempotency.redis.command-timeout=2s",
					"idempotency.operations.Payments.charge.lock-timeout=10s",
					"idempotency.operations.nightly-report.lock-timeout=1s")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output)
			.contains("Operation 'Payments.refund': idempotency.redis.command-timeout (2000 ms) is "
					+ "longer than half its lock timeout (3000 ms, from idempotency.lock-timeout)")
			.contains("Operation 'nightly-report': idempotency.redis.command-timeout (2000 ms) is longer than half "
					+ "its lock timeout (1000 ms, from idempotency.operations.nightly-report.lock-timeout)")
			.doesNotContain("Operation 'Payments.charge'")
			.doesNotContain("replica-ack-timeout (");
	}

	@Test
	void defaultsWarnOfNothing(CapturedOutput output) {
		this.contextRunner.withBean(Reports.class)
			.withPropertyValues("idempotency.redis.replica-acks=1")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("is longer than half its lock timeout");
	}

	@Test
	void theMemoryStoreIsNotChecked(CapturedOutput output) {
		this.contextRunner.withBean(Payments.class)
			.withPropertyValues("idempotency.store=memory", "idempotency.lock-timeout=1s")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("is longer than half its lock timeout");
	}

	static class Reports {

		@Idempotent(key = "#day")
		public void build(String day) {
		}

	}

	static class Payments {

		@Idempotent(key = "#id", lockTimeout = "1500ms")
		public String charge(String id) {
			return id;
		}

		@Idempotent(key = "#id")
		public String refund(String id) {
			return id;
		}

	}

}
