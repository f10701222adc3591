package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import dev.idempotency.Idempotent;
import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.engine.IdempotencyListener;
import dev.idempotency.engine.Outcome;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Methods that return a {@code CompletableFuture} or a {@code Mono}, through the
 * auto-configured advisor and the Redis store.
 */
class AsyncIdempotentInvocationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				JacksonAutoConfiguration.class))
		.withPropertyValues("idempotency.store=redis", "spring.data.redis.host=" + TestRedis.get().host(),
				"spring.data.redis.port=" + TestRedis.get().port())
		.withBean(Orders.class)
		.withBean(Outcomes.class);

	@Test
	void stageAndMonoRunOnceAndReplayTheirValue() {
		this.contextRunner.run((context) -> {
			Orders orders = context.getBean(Orders.class);
			String key = UUID.randomUUID().toString();
			assertThat(orders.place(key).get(10, TimeUnit.SECONDS)).isEqualTo("order-1");
			assertThat(orders.place(key)).isCompletedWithValue("order-1");
			Mono<String> shipment = orders.ship(key);
			assertThat(shipment.block(Duration.ofSeconds(10))).isEqualTo("shipment-2");
			assertThat(shipment.block(Duration.ofSeconds(10))).isEqualTo("shipment-2");
			assertThat(orders.runs()).isEqualTo(2);
			assertThat(context.getBean(Outcomes.class).outcomes).containsExactly("Orders.place:EXECUTED",
					"Orders.place:REPLAYED", "Orders.ship:EXECUTED", "Orders.ship:REPLAYED");
		});
	}

	@Test
	void waitingCallerGetsTheValueOfTheRunningCallWithoutBlocking() {
		this.contextRunner.run((context) -> {
			Orders orders = context.getBean(Orders.class);
			String key = UUID.randomUUID().toString();
			CompletableFuture<String> pending = new CompletableFuture<>();
			CompletableFuture<String> first = orders.confirm(key, pending);
			CompletableFuture<String> waiting = orders.confirm(key, pending);
			assertThat(waiting).isNotDone();
			pending.complete("confirmed");
			assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("confirmed");
			assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo("confirmed");
			assertThat(orders.runs()).isEqualTo(1);
		});
	}

	static class Orders {

		private final AtomicInteger runs = new AtomicInteger();

		@Idempotent(key = "#id")
		public CompletableFuture<String> place(String id) {
			return CompletableFuture.supplyAsync(() -> "order-" + this.runs.incrementAndGet());
		}

		@Idempotent(key = "#id")
		public Mono<String> ship(String id) {
			return Mono.fromSupplier(() -> "shipment-" + this.runs.incrementAndGet());
		}

		@Idempotent(key = "#id", onInProgress = OnInProgress.WAIT)
		public CompletableFuture<String> confirm(String id, CompletableFuture<String> value) {
			this.runs.incrementAndGet();
			return value;
		}

		public int runs() {
			return this.runs.get();
		}

	}

	static class Outcomes implements IdempotencyListener {

		final List<String> outcomes = new CopyOnWriteArrayList<>();

		@Override
		public void onOutcome(String name, Outcome outcome) {
			this.outcomes.add(name + ":" + outcome);
		}

	}

}
