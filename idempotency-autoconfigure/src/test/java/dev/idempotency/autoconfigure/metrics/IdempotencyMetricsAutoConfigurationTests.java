package dev.idempotency.autoconfigure.metrics;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.engine.Outcome;
import dev.idempotency.engine.StoreOperation;
import dev.idempotency.metrics.IdempotencyMetricNames;
import dev.idempotency.metrics.IdempotencyMetrics;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link IdempotencyMetricsAutoConfiguration}.
 */
class IdempotencyMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class,
				IdempotencyMetricsAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withPropertyValues("idempotency.store=memory");

	private final ApplicationContextRunner bootMetricsRunner = this.contextRunner
		.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class));

	@Test
	void publishesOutcomesToTheRegistryOfBootsMetricsAutoConfiguration() {
		this.bootMetricsRunner.withBean(Payments.class).run((context) -> {
			assertThat(context).hasSingleBean(IdempotencyMetrics.class).hasSingleBean(SimpleMeterRegistry.class);
			Payments payments = context.getBean(Payments.class);
			payments.charge("a");
			payments.charge("a");
			Map<String, Double> counts = counts(context.getBean(MeterRegistry.class), "Payments.charge");
			assertThat(counts).containsEntry("executed", 1.0).containsEntry("replayed", 1.0);
		});
	}

	@Test
	void registersEveryOutcomeOfEveryAnnotatedAndConfiguredOperationAtStartup() {
		this.bootMetricsRunner.withBean(Payments.class)
			.withPropertyValues("idempotency.operations.nightly-report.retention=1h",
					"idempotency.operations.Reports.build.retention=2h")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.find(IdempotencyMetricNames.INVOCATIONS).counters())
					.hasSize(4 * Outcome.values().length);
				for (String name : new String[] { "Payments.charge", "Payments.refund", "nightly-report",
						"Reports.build" }) {
					assertThat(counts(registry, name)).as(name)
						.hasSize(Outcome.values().length)
						.allSatisfy((outcome, count) -> {
							assertThat(count).isZero();
						});
				}
				assertThat(registry.find(IdempotencyMetricNames.STORE_OPERATIONS).timers()).hasSize(4 * 2)
					.allSatisfy((timer) -> {
						assertThat(timer.getId().getTag(IdempotencyMetricNames.STORE)).isEqualTo("memory");
						assertThat(timer.count()).isZero();
					});
				for (StoreOperation operation : StoreOperation.values()) {
					for (String result : new String[] { IdempotencyMetricNames.SUCCESS,
							IdempotencyMetricNames.ERROR }) {
						assertThat(registry.find(IdempotencyMetricNames.STORE_OPERATIONS)
							.tag(IdempotencyMetricNames.OPERATION, operation.tag())
							.tag(IdempotencyMetricNames.RESULT, result)
							.timer()).isNotNull();
					}
				}
			});
	}

	@Test
	void registersExecutorOperationsOnFirstUse() {
		this.bootMetricsRunner.run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(counts(registry, "manual")).isEmpty();
			AtomicInteger runs = new AtomicInteger();
			context.getBean(IdempotentExecutor.class).run("manual", "k", runs::incrementAndGet);
			assertThat(counts(registry, "manual")).hasSize(Outcome.values().length).containsEntry("executed", 1.0);
			Timer acquire = registry.get(IdempotencyMetricNames.STORE_OPERATIONS)
				.tag(IdempotencyMetricNames.OPERATION, "acquire")
				.tag(IdempotencyMetricNames.RESULT, IdempotencyMetricNames.SUCCESS)
				.timer();
			assertThat(acquire.count()).isOne();
		});
	}

	@Test
	void usesAnyMeterRegistryBean() {
		this.contextRunner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyMetrics.class));
	}

	@Test
	void backsOffWithoutAMeterRegistry() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyMetrics.class));
	}

	@Test
	void backsOffWithoutMicrometer() {
		this.contextRunner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyMetrics.class));
	}

	@Test
	void backsOffWhenIdempotencyIsDisabled() {
		this.bootMetricsRunner.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyMetrics.class));
	}

	@Test
	void backsOffToAUserDefinedIdempotencyMetrics() {
		SimpleMeterRegistry own = new SimpleMeterRegistry();
		this.bootMetricsRunner.withBean(IdempotencyMetrics.class, () -> new IdempotencyMetrics(own))
			.withBean(Payments.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(IdempotencyMetrics.class);
				context.getBean(Payments.class).charge("a");
				assertThat(counts(own, "Payments.charge")).containsEntry("executed", 1.0);
				assertThat(counts(context.getBean(MeterRegistry.class), "Payments.charge")).isEmpty();
			});
	}

	static Map<String, Double> counts(MeterRegistry registry, String name) {
		Map<String, Double> counts = new TreeMap<>();
		for (Counter counter : registry.find(IdempotencyMetricNames.INVOCATIONS)
			.tag(IdempotencyMetricNames.NAME, name)
			.counters()) {
			counts.put(counter.getId().getTag(IdempotencyMetricNames.OUTCOME), counter.count());
		}
		return counts;
	}

	static class Payments {

		@Idempotent(key = "#id")
		public void charge(String id) {
		}

		@Idempotent(key = "#id")
		public void refund(String id) {
		}

	}

}
