package dev.idempotency.autoconfigure.observation;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.engine.IdempotencyObserver;
import dev.idempotency.observation.ObservationIdempotencyObserver;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link IdempotencyObservationAutoConfiguration}.
 */
class IdempotencyObservationAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class,
				IdempotencyObservationAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withPropertyValues("idempotency.store=memory");

	private final ApplicationContextRunner bootObservationRunner = this.contextRunner
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
		.withBean(RecordingHandler.class)
		.withBean(Payments.class);

	@Test
	void observesCallsWithTheRegistryOfBootsObservationAutoConfiguration() {
		this.bootObservationRunner.run((context) -> {
			assertThat(context).hasSingleBean(ObservationIdempotencyObserver.class);
			context.getBean(Payments.class).charge("order-1");
			assertThat(context.getBean(RecordingHandler.class).stopped).containsExactly("idempotency.call");
		});
	}

	@Test
	void observationsCanBeDisabledLikeAnyOther() {
		this.bootObservationRunner.withPropertyValues("management.observations.enable.idempotency=false")
			.run((context) -> {
				context.getBean(Payments.class).charge("order-1");
				assertThat(context.getBean(RecordingHandler.class).stopped).isEmpty();
			});
	}

	@Test
	void backsOffWithoutAnObservationRegistry() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyObserver.class));
	}

	@Test
	void backsOffWithoutMicrometerObservation() {
		this.contextRunner.withBean(ObservationRegistry.class, ObservationRegistry::create)
			.withClassLoader(new FilteredClassLoader(ObservationRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyObserver.class));
	}

	@Test
	void backsOffWhenIdempotencyIsDisabled() {
		this.bootObservationRunner.withPropertyValues("idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyObserver.class));
	}

	@Test
	void backsOffToAUserDefinedObserver() {
		this.bootObservationRunner.withBean(IdempotencyObserver.class, () -> IdempotencyObserver.NONE)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(ObservationIdempotencyObserver.class)
					.hasSingleBean(IdempotencyObserver.class);
				context.getBean(Payments.class).charge("order-1");
				assertThat(context.getBean(RecordingHandler.class).stopped).isEmpty();
			});
	}

	static class RecordingHandler implements ObservationHandler<Observation.Context> {

		final List<String> stopped = new CopyOnWriteArrayList<>();

		@Override
		public void onStop(Observation.Context context) {
			this.stopped.add(context.getName());
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	static class Payments {

		@Idempotent(key = "#id")
		public void charge(String id) {
		}

	}

}
