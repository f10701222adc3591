package dev.idempotency.observation;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.observation.IdempotencyObservationAutoConfiguration;
import dev.idempotency.engine.IdempotencyObserver;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ObservationIdempotencyObserver}, through the auto-configured advisor.
 */
class ObservationIdempotencyObserverTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class,
				IdempotencyObservationAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withPropertyValues("idempotency.store=memory")
		.withBean(TestObservationRegistry.class, TestObservationRegistry::create)
		.withBean(Payments.class);

	@Test
	void executedCallIsObservedWithItsNameOutcomeAndKey() {
		this.contextRunner.run((context) -> {
			context.getBean(Payments.class).charge("order-1", 10);
			assertThat(context.getBean(TestObservationRegistry.class)).hasSingleObservationThat()
				.hasNameEqualTo("idempotency.call")
				.hasContextualNameEqualTo("idempotent Payments.charge")
				.hasLowCardinalityKeyValue("name", "Payments.charge")
				.hasLowCardinalityKeyValue("outcome", "executed")
				.hasHighCardinalityKeyValue("key", "order-1")
				.doesNotHaveLowCardinalityKeyValueWithKey("key")
				.doesNotHaveError()
				.hasBeenStarted()
				.hasBeenStopped();
		});
	}

	@Test
	void replayedCallIsObservedWithItsOutcome() {
		this.contextRunner.run((context) -> {
			Payments payments = context.getBean(Payments.class);
			payments.charge("order-1", 10);
			payments.charge("order-1", 10);
			assertThat(context.getBean(TestObservationRegistry.class))
				.hasNumberOfObservationsWithNameEqualTo("idempotency.call", 2)
				.hasHandledContextsThatSatisfy((contexts) -> {
					assertThat(contexts).map((handled) -> handled.getLowCardinalityKeyValue("outcome").getValue())
						.containsExactly("executed", "replayed");
					assertThat(contexts).map((handled) -> handled.getHighCardinalityKeyValue("key").getValue())
						.containsExactly("order-1", "order-1");
				});
		});
	}

	@Test
	void failedCallRecordsTheMethodsOwnException() {
		this.contextRunner.run((context) -> {
			IllegalStateException boom = new IllegalStateException("declined");
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> context.getBean(Payments.class).fail("order-1", boom))
				.isSameAs(boom);
			assertThat(context.getBean(TestObservationRegistry.class)).hasSingleObservationThat()
				.hasLowCardinalityKeyValue("name", "Payments.fail")
				.hasLowCardinalityKeyValue("outcome", "failed")
				.hasHighCardinalityKeyValue("key", "order-1")
				.hasError(boom)
				.hasBeenStopped();
		});
	}

	@Test
	void rejectedDuplicateRecordsItsIdempotencyException() {
		this.contextRunner.run((context) -> {
			Payments payments = context.getBean(Payments.class);
			payments.charge("order-1", 10);
			assertThatExceptionOfType(IdempotencyKeyReuseException.class)
				.isThrownBy(() -> payments.charge("order-1", 20));
			assertThat(context.getBean(TestObservationRegistry.class))
				.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("outcome", "key_reuse")
					.assertThatError()
					.isInstanceOf(IdempotencyKeyReuseException.class));
		});
	}

	@Test
	void observationIsCurrentWhileTheMethodRunsSoItsObservationsNest() {
		this.contextRunner.run((context) -> {
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			context.getBean(Payments.class).nested("order-1", registry);
			assertThat(registry).hasNumberOfObservationsEqualTo(2)
				.hasObservationWithNameEqualTo("payment.gateway")
				.that()
				.hasParentObservationContextMatching(
						(parent) -> parent instanceof IdempotencyObservationContext idempotency
								&& idempotency.getKey().equals("order-1"));
			assertThat(registry.getCurrentObservation()).isNull();
		});
	}

	@Test
	void asyncCallIsCurrentWhileTheMethodReturnsItsStageAndStopsWhenTheValueArrives() {
		this.contextRunner.run((context) -> {
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
			CompletableFuture<String> pending = new CompletableFuture<>();
			CompletableFuture<String> call = context.getBean(Payments.class).later("order-1", pending, registry);
			assertThat(registry.getCurrentObservation()).isNull();
			assertThat(registry).hasObservationWithNameEqualTo("idempotency.call").that().isNotStopped();
			pending.complete("done");
			assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(registry.getCurrentObservation()).isNull();
			assertThat(registry).hasObservationWithNameEqualTo("idempotency.call")
				.that()
				.hasLowCardinalityKeyValue("outcome", "executed")
				.hasBeenStopped();
			assertThat(registry).hasObservationWithNameEqualTo("payment.gateway")
				.that()
				.hasParentObservationContextMatching((parent) -> parent instanceof IdempotencyObservationContext);
		});
	}

	@Test
	void customConventionReplacesTheDefault() {
		this.contextRunner.withBean(IdempotencyObservationConvention.class, CustomConvention::new).run((context) -> {
			context.getBean(Payments.class).charge("order-1", 10);
			assertThat(context.getBean(TestObservationRegistry.class)).hasSingleObservationThat()
				.hasNameEqualTo("payments.idempotency")
				.hasContextualNameEqualTo("once Payments.charge");
		});
	}

	@Test
	void costsNothingPerCallWithoutHandlers() {
		for (ObservationRegistry registry : List.of(ObservationRegistry.NOOP, ObservationRegistry.create())) {
			assertThat(new ObservationIdempotencyObserver(registry, null).start("Payments.charge", "order-1"))
				.isSameAs(IdempotencyObserver.Call.NONE);
		}
	}

	static class Payments {

		@Idempotent(key = "#id", payload = "#amount")
		public void charge(String id, int amount) {
		}

		@Idempotent(key = "#id")
		public void fail(String id, RuntimeException failure) {
			throw failure;
		}

		@Idempotent(key = "#id")
		public CompletableFuture<String> later(String id, CompletableFuture<String> value,
				ObservationRegistry registry) {
			Observation.createNotStarted("payment.gateway", registry).observe(() -> {
			});
			return value;
		}

		@Idempotent(key = "#id")
		public void nested(String id, ObservationRegistry registry) {
			Observation.createNotStarted("payment.gateway", registry).observe(() -> {
			});
		}

	}

	static class CustomConvention implements IdempotencyObservationConvention {

		@Override
		public String getName() {
			return "payments.idempotency";
		}

		@Override
		public String getContextualName(IdempotencyObservationContext context) {
			return "once " + context.getOperationName();
		}

	}

}
