package dev.idempotency.autoconfigure;

import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.Idempotent;
import dev.idempotency.store.IdempotencyStore;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for what {@link IdempotencyStartupReport} logs once the application has started.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyStartupReportTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class, DataRedisAutoConfiguration.class));

	@Test
	void namesTheMemoryStoreItsBoundAndTheOperations(CapturedOutput output) {
		this.contextRunner.withBean(Payments.class).run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).containsPattern(
				logged("INFO", "Idempotency: in-memory store (at most 100000 records), 2 @Idempotent operations"));
	}

	@Test
	void countsOneOperationInTheSingular(CapturedOutput output) {
		this.contextRunner.withPropertyValues("idempotency.store=memory", "idempotency.memory.max-entries=500")
			.withBean(Reports.class)
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("Idempotency: in-memory store (at most 500 records), 1 @Idempotent operation\n");
	}

	@Test
	void namesTheRedisServerAndKeyPrefix(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("spring.data.redis.host=redis.internal", "spring.data.redis.port=6390",
					"idempotency.key-prefix=idem:")
			.withBean(Payments.class)
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output)
			.contains("Idempotency: Redis store at redis.internal:6390 (key prefix 'idem:'), 2 @Idempotent operations");
	}

	@Test
	void namesTheReplicaAcknowledgementsWhenItWaitsForAny(CapturedOutput output) {
		this.contextRunner
			.withPropertyValues("spring.data.redis.host=redis.internal", "spring.data.redis.port=6390",
					"idempotency.redis.replica-acks=2", "idempotency.redis.replica-ack-timeout=250ms")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("Idempotency: Redis store at redis.internal:6390 (key prefix 'idempotency:', "
				+ "waits for 2 replicas within 250 ms), 0 @Idempotent operations");
	}

	@Test
	void namesTheNodesOfARedisCluster(CapturedOutput output) {
		this.contextRunner.withPropertyValues("spring.data.redis.cluster.nodes=node-1:7000")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains(
				"Idempotency: Redis store at cluster nodes node-1:7000 (key prefix 'idempotency:'), 0 @Idempotent "
						+ "operations");
	}

	@Test
	void namesTheClassOfAStoreOfTheApplication(CapturedOutput output) {
		this.contextRunner.withBean(IdempotencyStore.class, StoreFailureLoggingTests.OutageStore::new)
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("Idempotency: store " + StoreFailureLoggingTests.OutageStore.class.getName()
				+ ", 0 @Idempotent operations");
	}

	@Test
	void warnsOfEveryConfiguredOperationThatNoMethodHasWithTheClosestName(CapturedOutput output) {
		this.contextRunner.withBean(Payments.class)
			.withPropertyValues("idempotency.operations.Payments.chrage.retention=1h",
					"idempotency.operations.payments.refund.retention=1h",
					"idempotency.operations.nightly-report.retention=1h",
					"idempotency.operations.Payments.charge.retention=2h")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output)
			.containsPattern(logged("WARN", "idempotency.operations[Payments.chrage] matches no @Idempotent method "
					+ "(did you mean 'Payments.charge'?). Its settings apply only to an operation of that name known later"))
			.contains("idempotency.operations[payments.refund] matches no @Idempotent method (did you mean "
					+ "'Payments.refund'?)")
			.contains("idempotency.operations[nightly-report] matches no @Idempotent method. Its settings")
			.doesNotContain("idempotency.operations[Payments.charge] matches");
	}

	@Test
	void operationsOfLazyBeansAreNotKnownAtStartup(CapturedOutput output) {
		this.contextRunner.withBean(Payments.class, Payments::new, (definition) -> definition.setLazyInit(true))
			.withPropertyValues("idempotency.operations.Payments.charge.retention=2h")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("0 @Idempotent operations")
			.contains("idempotency.operations[Payments.charge] matches no @Idempotent method");
	}

	@Test
	void closestNameIgnoresCaseAndSkipsNamesTooFarAway() {
		List<String> names = List.of("Payments.charge", "Payments.refund", "Orders.place");
		assertThat(IdempotencyStartupReport.closest("payments.charge", names)).isEqualTo("Payments.charge");
		assertThat(IdempotencyStartupReport.closest("Payments.chrage", names)).isEqualTo("Payments.charge");
		assertThat(IdempotencyStartupReport.closest("Orders.plac", names)).isEqualTo("Orders.place");
		assertThat(IdempotencyStartupReport.closest("ab", List.of("xy", "ac"))).isEqualTo("ac");
		assertThat(IdempotencyStartupReport.closest("ab", List.of("xy"))).isNull();
		assertThat(IdempotencyStartupReport.closest("nightly-report", names)).isNull();
		assertThat(IdempotencyStartupReport.closest("Orders.cancel", names)).isNull();
	}

	static class Payments {

		@Idempotent(key = "#id")
		public String charge(String id) {
			return id;
		}

		@Idempotent(key = "#id")
		public String refund(String id) {
			return id;
		}

	}

	static class Reports {

		@Idempotent(key = "#day")
		public void build(String day) {
		}

	}

	// Either format: the plain one before any Spring Boot application in this JVM set up
	// logging, Spring Boot's after
	private static String logged(String level, String message) {
		return level + " .*(dev\\.idempotency\\.autoconfigure|d\\.i\\.a)\\.IdempotencyAutoConfiguration\\s+(--|:) "
				+ Pattern.quote(message);
	}

}
