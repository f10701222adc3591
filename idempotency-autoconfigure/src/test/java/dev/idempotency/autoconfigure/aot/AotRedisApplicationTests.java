package dev.idempotency.autoconfigure.aot;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configuration and an {@code @Idempotent} service refreshed from AOT-generated
 * code on a real Redis: the store's Lua scripts run, a record result is written and
 * replayed field by field (not as {@code {}}), a key navigates a record argument, a stage
 * is followed, a replayed failure is made anew; and the hints a native image needs for
 * all of it are gathered by the build.
 */
@CompileWithForkedClassLoader
class AotRedisApplicationTests {

	@Test
	void idempotentServiceRunsOnceAndReplaysFromGeneratedCode() {
		Map<String, Object> properties = Map.of("idempotency.store", "redis", "spring.data.redis.host",
				TestRedis.get().host(), "spring.data.redis.port", TestRedis.get().port(), "idempotency.key-prefix",
				"aot-" + UUID.randomUUID() + ":");
		AotContexts.run(GenericApplicationContext::new, RedisApplication.class, properties, (refreshed) -> {
			GenericApplicationContext context = refreshed.context();
			assertThat(context.getBean(IdempotencyStore.class).type()).isEqualTo("redis");
			Payments payments = context.getBean(Payments.class);
			PaymentEvent event = new PaymentEvent(new Customer("c-1"), 1250, "EUR");
			Receipt first = payments.charge(event);
			Receipt replayed = payments.charge(event);
			assertThat(replayed).isEqualTo(first)
				.isEqualTo(new Receipt("c-1", new Money(1250, "EUR"), List.of("charged")));
			assertThat(payments.charges()).isEqualTo(1);
			Refund refund = payments.refund("r-1").join();
			Refund again = payments.refund("r-1").join();
			assertThat(again).isEqualTo(refund).isEqualTo(new Refund("r-1", 1));
			assertThat(payments.refunds()).isEqualTo(1);
			Declined declined = catchDeclined(() -> payments.decline("d-1"));
			Declined replayedDecline = catchDeclined(() -> payments.decline("d-1"));
			assertThat(replayedDecline).isNotSameAs(declined).hasMessage("card declined");
			assertThat(payments.declines()).isEqualTo(1);
			assertThat(RuntimeHintsPredicates.resource().forResource("dev/idempotency/store/redis/acquire.lua"))
				.accepts(refreshed.hints());
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Money.class, "currency"))
				.accepts(refreshed.hints());
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Customer.class, "id"))
				.accepts(refreshed.hints());
			assertThat(RuntimeHintsPredicates.reflection().onType(Refund.class)).accepts(refreshed.hints());
			assertThat(RuntimeHintsPredicates.reflection()
				.onConstructorInvocation(Declined.class.getConstructor(String.class))).accepts(refreshed.hints());
		});
	}

	private static Declined catchDeclined(Runnable call) {
		try {
			call.run();
		}
		catch (Declined ex) {
			return ex;
		}
		throw new AssertionError("Expected a Declined");
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
			IdempotencyAutoConfiguration.class })
	static class RedisApplication {

		@Bean
		Payments payments() {
			return new Payments();
		}

	}

	static class Payments {

		// Read through methods: the bean is a proxy by subclass, whose own fields are
		// unset
		private final AtomicInteger charges = new AtomicInteger();

		private final AtomicInteger refunds = new AtomicInteger();

		private final AtomicInteger declines = new AtomicInteger();

		public int charges() {
			return this.charges.get();
		}

		public int refunds() {
			return this.refunds.get();
		}

		public int declines() {
			return this.declines.get();
		}

		@Idempotent(key = "#event.customer.id + ':' + #event.cents")
		public Receipt charge(PaymentEvent event) {
			this.charges.incrementAndGet();
			return new Receipt(event.customer().id(), new Money(event.cents(), event.currency()), List.of("charged"));
		}

		@Idempotent(key = "#id")
		public CompletableFuture<Refund> refund(String id) {
			return CompletableFuture.completedFuture(new Refund(id, this.refunds.incrementAndGet()));
		}

		@Idempotent(key = "#id", replayFailures = Declined.class)
		public String decline(String id) {
			this.declines.incrementAndGet();
			throw new Declined("card declined");
		}

	}

	record PaymentEvent(Customer customer, long cents, String currency) {
	}

	record Customer(String id) {
	}

	record Receipt(String customer, Money amount, List<String> notes) {
	}

	record Money(long cents, String currency) {
	}

	record Refund(String id, int attempt) {
	}

	public static class Declined extends RuntimeException {

		public Declined(String message) {
			super(message);
		}

	}

}
