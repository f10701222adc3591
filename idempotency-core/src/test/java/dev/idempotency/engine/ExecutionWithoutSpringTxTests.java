package dev.idempotency.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Calls with no spring-tx on the class path: run by a Surefire execution of their own
 * that leaves it out (the Redis store's Spring Data Redis needs it, so the store is the
 * in-memory one). The default execution leaves them out by their tag.
 */
@Tag("without-spring-tx")
class ExecutionWithoutSpringTxTests {

	private static final Operation OPERATION = new Operation("orders",
			new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1), OnInProgress.REJECT,
					Duration.ofSeconds(5)),
			new JacksonResultCodec(JsonMapper.builder().build()).forType(ResolvableType.forClass(String.class)),
			"the test's key");

	@Test
	void springTxIsNotOnTheClassPath() {
		assertThat(ClassUtils.isPresent("org.springframework.transaction.support.TransactionSynchronizationManager",
				getClass().getClassLoader()))
			.isFalse();
	}

	@Test
	void duplicateOfACallInProgressIsRefused() throws Throwable {
		try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryIdempotencyStore(),
				IdempotencyDefaults.STANDARD, List.of())) {
			assertThat(engine.execute(OPERATION, "o-1", null, () -> {
				assertThatExceptionOfType(IdempotencyInProgressException.class)
					.isThrownBy(() -> engine.execute(OPERATION, "o-1", null, () -> "never"));
				return "order-1";
			})).isEqualTo("order-1");
		}
	}

	@Test
	void callCompletesItsRecordWhenTheMethodReturnsAndReplays() throws Throwable {
		InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
		AtomicInteger runs = new AtomicInteger();
		try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of())) {
			assertThat(engine.execute(OPERATION, "o-1", null, () -> "order-" + runs.incrementAndGet()))
				.isEqualTo("order-1");
			assertThat(store.read(new RecordKey("orders", "o-1")).map(IdempotencyRecord::state))
				.contains(RecordState.COMPLETED);
			assertThat(engine.execute(OPERATION, "o-1", null, () -> "order-" + runs.incrementAndGet()))
				.isEqualTo("order-1");
		}
		assertThat(runs).hasValue(1);
	}

}
