package dev.idempotency.engine;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A key given by a client never reaches the records of another operation, whatever it
 * contains, on every store: names cannot hold the separator that the Redis layout puts
 * between name and key.
 */
class OperationNamespaceTests {

	private final String orders = "orders-" + UUID.randomUUID();

	private final AtomicInteger runs = new AtomicInteger();

	static Stream<Named<Supplier<IdempotencyStore>>> stores() {
		return Stream.of(Named.of("memory", InMemoryIdempotencyStore::new), Named.of("redis",
				() -> new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency-namespace-test:")));
	}

	@ParameterizedTest
	@MethodSource("stores")
	void keyWithTheSeparatorCannotBeReadThroughACollidingName(Supplier<IdempotencyStore> store) {
		try (IdempotencyEngine engine = new IdempotencyEngine(store.get(), IdempotencyDefaults.STANDARD, List.of())) {
			IdempotentExecutor executor = executor(engine);
			assertThat(executor.execute(this.orders, "refund:42", String.class, this::order)).isEqualTo("order-1");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> executor.execute(this.orders + ":refund", "42", String.class, this::order))
				.withMessageContaining("'" + this.orders + ":refund' must not contain ':'");
			assertThat(executor.execute(this.orders, "refund:42", String.class, this::order)).isEqualTo("order-1");
			assertThat(this.runs).hasValue(1);
		}
	}

	@ParameterizedTest
	@MethodSource("stores")
	void keyWithTheSeparatorCannotBlockACollidingName(Supplier<IdempotencyStore> store) throws Exception {
		try (IdempotencyEngine engine = new IdempotencyEngine(store.get(), IdempotencyDefaults.STANDARD, List.of())) {
			IdempotentExecutor executor = executor(engine);
			CountDownLatch running = new CountDownLatch(1);
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<String> first = CompletableFuture
				.supplyAsync(() -> executor.execute(this.orders, "refund:42", String.class, () -> {
					running.countDown();
					await(release);
					return order();
				}));
			assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
			assertThatIllegalArgumentException()
				.isThrownBy(() -> executor.run(this.orders + ":refund", "42", this.runs::incrementAndGet));
			release.countDown();
			assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("order-1");
			assertThat(this.runs).hasValue(1);
		}
	}

	@ParameterizedTest
	@MethodSource("stores")
	void namesAndKeysThatLookAlikeAroundTheSeparatorStayApart(Supplier<IdempotencyStore> store) {
		try (IdempotencyEngine engine = new IdempotencyEngine(store.get(), IdempotencyDefaults.STANDARD, List.of())) {
			IdempotentExecutor executor = executor(engine);
			List<String> records = List.of(executor.execute(this.orders, "refund:42", String.class, this::record),
					executor.execute(this.orders, "refund.42", String.class, this::record),
					executor.execute(this.orders + ".refund", "42", String.class, this::record),
					executor.execute(this.orders, "refund", String.class, this::record));
			assertThat(records).doesNotHaveDuplicates();
			assertThat(this.runs).hasValue(4);
		}
	}

	private String order() {
		return "order-" + this.runs.incrementAndGet();
	}

	private String record() {
		this.runs.incrementAndGet();
		IdempotencyContext context = IdempotencyContext.current();
		return context.name() + " / " + context.key();
	}

	private static IdempotentExecutor executor(IdempotencyEngine engine) {
		return new DefaultIdempotentExecutor(engine, new JacksonResultCodec(), new JacksonPayloadFingerprinter());
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
