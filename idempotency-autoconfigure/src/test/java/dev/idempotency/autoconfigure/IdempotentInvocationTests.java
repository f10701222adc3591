package dev.idempotency.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.engine.IdempotencyListener;
import dev.idempotency.engine.Outcome;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of calls through the auto-configured advisor and executor, on the in-memory store
 * with the Jackson codec.
 */
class IdempotentInvocationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withPropertyValues("idempotency.store=memory");

	@Test
	void annotatedMethodRunsOncePerKeyThroughTheEngine() {
		this.contextRunner.withBean(Payments.class).withBean(RecordingListener.class).run((context) -> {
			Payments payments = context.getBean(Payments.class);
			payments.charge("a");
			payments.charge("a");
			payments.charge("b");
			assertThat(payments.calls()).isEqualTo(2);
			assertThat(context.getBean(RecordingListener.class).outcomes).containsExactly("Payments.charge:EXECUTED",
					"Payments.charge:REPLAYED", "Payments.charge:EXECUTED");
		});
	}

	@Test
	void duplicateGetsStoredReturnValue() {
		this.contextRunner.withBean(Payments.class).run((context) -> {
			Payments payments = context.getBean(Payments.class);
			String first = payments.receipt("a");
			assertThat(payments.receipt("a")).isEqualTo(first).isEqualTo("receipt-1");
			assertThat(payments.calls()).isEqualTo(1);
		});
	}

	@Test
	void keyReusedWithAnotherPayloadFails() {
		this.contextRunner.withBean(Payments.class).run((context) -> {
			Payments payments = context.getBean(Payments.class);
			payments.pay("a", 10);
			assertThatExceptionOfType(IdempotencyKeyReuseException.class).isThrownBy(() -> payments.pay("a", 20));
			assertThat(payments.calls()).isEqualTo(1);
		});
	}

	@Test
	void keyExpressionCanReferToBeans() {
		this.contextRunner.withBean("keys", Keys.class).withBean(Payments.class).run((context) -> {
			Payments payments = context.getBean(Payments.class);
			payments.byBean("a");
			payments.byBean("A");
			assertThat(payments.calls()).isEqualTo(1);
		});
	}

	@Test
	void executorRunsOncePerKey() {
		this.contextRunner.run((context) -> {
			IdempotentExecutor executor = context.getBean(IdempotentExecutor.class);
			AtomicInteger calls = new AtomicInteger();
			executor.run("manual", "k", calls::incrementAndGet);
			executor.run("manual", "k", calls::incrementAndGet);
			assertThat(calls).hasValue(1);
		});
	}

	@Test
	void lambdaBeanOfAnAnnotatedInterfaceRunsOncePerKeyUnderTheInterfacesName() {
		AtomicInteger calls = new AtomicInteger();
		this.contextRunner.withBean(Charger.class, () -> (id) -> id + "-" + calls.incrementAndGet())
			.withBean(RecordingListener.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Charger charger = context.getBean(Charger.class);
				assertThat(charger.charge("a")).isEqualTo("a-1");
				assertThat(charger.charge("a")).isEqualTo("a-1");
				assertThat(calls).hasValue(1);
				assertThat(context.getBean(RecordingListener.class).outcomes).containsExactly("Charger.charge:EXECUTED",
						"Charger.charge:REPLAYED");
			});
	}

	@Test
	void failsStartupOnObjectReturnType() {
		this.contextRunner.withBean(ObjectReturning.class)
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("Invalid return type of @Idempotent method " + ObjectReturning.class.getName()
						+ ".find(String)"));
	}

	static class Payments {

		private final AtomicInteger calls = new AtomicInteger();

		@Idempotent(key = "#id")
		public void charge(String id) {
			this.calls.incrementAndGet();
		}

		@Idempotent(key = "#id")
		public String receipt(String id) {
			return "receipt-" + this.calls.incrementAndGet();
		}

		@Idempotent(key = "#id", payload = "#amount")
		public void pay(String id, int amount) {
			this.calls.incrementAndGet();
		}

		@Idempotent(key = "@keys.normalize(#id)")
		public void byBean(String id) {
			this.calls.incrementAndGet();
		}

		public int calls() {
			return this.calls.get();
		}

	}

	@FunctionalInterface
	interface Charger {

		@Idempotent(key = "#id")
		String charge(String id);

	}

	static class Keys {

		public String normalize(String id) {
			return id.toLowerCase(Locale.ROOT);
		}

	}

	static class RecordingListener implements IdempotencyListener {

		final List<String> outcomes = new ArrayList<>();

		@Override
		public synchronized void onOutcome(String name, Outcome outcome) {
			this.outcomes.add(name + ":" + outcome);
		}

	}

	static class ObjectReturning {

		@Idempotent(key = "#id")
		public Object find(String id) {
			return id;
		}

	}

}
