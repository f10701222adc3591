package dev.idempotency.store.dynamodb;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.Operation;
import dev.idempotency.engine.OperationSettings;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Two engines, each on a store of its own over one shared table, whose clocks disagree:
 * engine B's clock runs ahead of engine A's. Ahead by less than the skew allowance, B
 * never takes over a call A is running and renewing, even when A's lease, as A renews it,
 * has less left than B is ahead; ahead by more than the allowance (and the lease), B
 * takes over A's live lease and the method runs twice, the weaker guarantee of a store
 * judged on the callers' clocks, while fencing still refuses A's completion.
 */
class DynamoDbSkewedEnginesTests {

	private static final Duration SKEW = Duration.ofSeconds(1);

	private static final JacksonResultCodec CODEC = new JacksonResultCodec(JsonMapper.builder().build());

	private final ExecutorService callerA = Executors.newSingleThreadExecutor();

	private final CountDownLatch releaseA = new CountDownLatch(1);

	private final CountDownLatch startedA = new CountDownLatch(1);

	private final AtomicInteger runs = new AtomicInteger();

	private final String name = "skewed-" + UUID.randomUUID();

	private IdempotencyEngine engineA;

	private IdempotencyEngine engineB;

	@AfterEach
	void stop() throws InterruptedException {
		this.releaseA.countDown();
		this.callerA.shutdown();
		assertThat(this.callerA.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
		this.engineA.close();
		this.engineB.close();
	}

	@Test
	void engineAheadByLessThanTheAllowanceNeverTakesOverARunningCall() throws Throwable {
		// A renews every 300 ms, so its lease has about 600 ms left just before each
		// renewal: less than the 800 ms B is ahead, so B would take over without the
		// allowance
		Operation operation = operation(Duration.ofMillis(900));
		this.engineA = engine(Duration.ZERO);
		this.engineB = engine(Duration.ofMillis(800));
		Future<Object> callA = startA(operation);
		long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
		int refused = 0;
		while (System.nanoTime() - deadline < 0) {
			assertThatExceptionOfType(IdempotencyInProgressException.class)
				.isThrownBy(() -> this.engineB.execute(operation, "k", null, () -> "B-" + this.runs.incrementAndGet()));
			refused++;
		}
		assertThat(refused).isGreaterThan(10);
		assertThat(this.runs).hasValue(1);
		this.releaseA.countDown();
		assertThat(callA.get(30, TimeUnit.SECONDS)).isEqualTo("A-1");
		assertThat(this.engineB.execute(operation, "k", null, () -> "B-" + this.runs.incrementAndGet()))
			.isEqualTo("A-1");
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void engineAheadByMoreThanTheAllowanceTakesOverALiveLeaseAndFencingRefusesTheZombie() throws Throwable {
		// B is ahead by more than A's whole lease plus the allowance: A's lease, however
		// freshly renewed, has ended on B's clock
		Operation operation = operation(Duration.ofSeconds(2));
		this.engineA = engine(Duration.ZERO);
		this.engineB = engine(Duration.ofSeconds(4));
		Future<Object> callA = startA(operation);
		Object resultB = this.engineB.execute(operation, "k", null, () -> {
			// A's call is still running, its lease alive on its own clock
			assertThat(callA.isDone()).isFalse();
			return "B-" + this.runs.incrementAndGet();
		});
		assertThat(resultB).isEqualTo("B-2");
		assertThat(this.runs).hasValue(2);
		this.releaseA.countDown();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> callA.get(30, TimeUnit.SECONDS))
			.withCauseInstanceOf(IdempotencyLockLostException.class);
		IdempotencyRecord record = this.engineA.getStore().read(new RecordKey(this.name, "k")).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.fence()).isEqualTo(2);
		assertThat(this.engineA.execute(operation, "k", null, () -> "A-" + this.runs.incrementAndGet()))
			.isEqualTo("B-2");
		assertThat(this.runs).hasValue(2);
	}

	/**
	 * Start A's call on a thread of its own, its method running until released.
	 */
	private Future<Object> startA(Operation operation) throws InterruptedException {
		Future<Object> call = this.callerA.submit(() -> {
			try {
				return this.engineA.execute(operation, "k", null, () -> {
					int run = this.runs.incrementAndGet();
					this.startedA.countDown();
					assertThat(this.releaseA.await(30, TimeUnit.SECONDS)).isTrue();
					return "A-" + run;
				});
			}
			catch (Exception | Error ex) {
				throw ex;
			}
			catch (Throwable ex) {
				throw new IllegalStateException(ex);
			}
		});
		assertThat(this.startedA.await(30, TimeUnit.SECONDS)).isTrue();
		return call;
	}

	private Operation operation(Duration lockTimeout) {
		return new Operation(this.name,
				new OperationSettings(lockTimeout, Duration.ofHours(1), OnInProgress.REJECT, Duration.ofSeconds(5)),
				CODEC.forType(ResolvableType.forClass(String.class)), "the test's key");
	}

	/**
	 * An engine on a store of its own over the shared table, on a clock this far ahead of
	 * the system's.
	 */
	private static IdempotencyEngine engine(Duration ahead) {
		DynamoDbIdempotencyStore store = new DynamoDbIdempotencyStore(DynamoDbTestTables.client(),
				DynamoDbTestTables.table(), SKEW, Clock.offset(Clock.systemUTC(), ahead));
		return new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of());
	}

}
