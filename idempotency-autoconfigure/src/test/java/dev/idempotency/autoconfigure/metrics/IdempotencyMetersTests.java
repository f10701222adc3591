package dev.idempotency.autoconfigure.metrics;

import java.util.Set;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.observation.IdempotencyObservationAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every meter an application with actuator gets from the starter is one the README's
 * metrics table documents, with the tags it documents: the two of the listener, and the
 * two that Spring Boot's meter observation handler makes of the {@code idempotency.call}
 * observation.
 */
class IdempotencyMetersTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(IdempotencyAutoConfiguration.class, IdempotencyMetricsAutoConfiguration.class,
						IdempotencyObservationAutoConfiguration.class, JacksonAutoConfiguration.class,
						MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
						SimpleMetricsExportAutoConfiguration.class, ObservationAutoConfiguration.class))
		.withPropertyValues("idempotency.store=memory")
		.withBean(Payments.class);

	@Test
	void everyMeterIsADocumentedOneWithItsDocumentedTags() {
		this.contextRunner.run((context) -> {
			context.getBean(Payments.class).charge("order-1");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Set<String> names = registry.getMeters()
				.stream()
				.map((meter) -> meter.getId().getName())
				.filter((name) -> name.startsWith("idempotency"))
				.collect(Collectors.toSet());
			assertThat(names).containsExactlyInAnyOrder("idempotency.invocations", "idempotency.store.operations",
					"idempotency.call", "idempotency.call.active");
			Timer call = registry.get("idempotency.call").timer();
			assertThat(call.getId().getType()).isEqualTo(Meter.Type.TIMER);
			assertThat(call.getId().getTags()).containsExactlyInAnyOrder(Tag.of("name", "Payments.charge"),
					Tag.of("outcome", "executed"), Tag.of("error", "none"));
			assertThat(call.count()).isOne();
			LongTaskTimer active = registry.get("idempotency.call.active").longTaskTimer();
			assertThat(active.getId().getTags()).containsExactlyInAnyOrder(Tag.of("name", "Payments.charge"),
					Tag.of("outcome", "unknown"));
			assertThat(active.activeTasks()).isZero();
		});
	}

	@Test
	void longTaskTimersCanBeLeftOutAsBootAllows() {
		this.contextRunner.withPropertyValues("management.metrics.observations.ignored-meters=long-task-timer")
			.run((context) -> {
				context.getBean(Payments.class).charge("order-1");
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.find("idempotency.call").timer()).isNotNull();
				assertThat(registry.find("idempotency.call.active").meter()).isNull();
			});
	}

	static class Payments {

		@Idempotent(key = "#id")
		public void charge(String id) {
		}

	}

}
