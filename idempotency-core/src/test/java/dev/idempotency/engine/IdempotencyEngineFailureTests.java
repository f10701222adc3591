package dev.idempotency.engine;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.codec.ResultCodec.TypedCodec;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The engine's failure paths between a successful acquire and the method, and around
 * store calls that throw an {@link Error}, on the in-memory store.
 */
class IdempotencyEngineFailureTests {

	private static final JacksonResultCodec CODEC = new JacksonResultCodec(JsonMapper.builder().build());

	private static final OperationSettings REJECT = new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1),
			OnInProgress.REJECT, Duration.ofSeconds(5));

	private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();

	private final String name = "failure-" + UUID.randomUUID();

	private Operation operation(OperationSettings settings) {
		return new Operation(this.name, settings, CODEC.forType(ResolvableType.forClass(String.class)),
				"the test's key");
	}

	@Test
	void errorFromAcquireKeepsTheCallersInterruptFlag() {
		IdempotencyStore failing = new ForwardingStore(this.store) {

			@Override
			public AcquireResult acquire(RecordKey key, AcquireRequest request) {
				throw new AssertionError("store bug");
			}

		};
		try (IdempotencyEngine engine = new IdempotencyEngine(failing, IdempotencyDefaults.STANDARD, List.of())) {
			Thread.currentThread().interrupt();
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> engine.execute(operation(REJECT), "k", null, () -> "never"));
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
	}

	@Test
	void renewerThatCannotStartItsThreadDoesNotStrandTheAcquiredRecord() throws Throwable {
		AtomicBoolean failNextStart = new AtomicBoolean(true);
		try (IdempotencyEngine engine = new IdempotencyEngine(this.store, IdempotencyDefaults.STANDARD, List.of(),
				System::nanoTime, (task) -> {
					Thread thread = new Thread(task, "failing-renewer") {

						@Override
						public synchronized void start() {
							if (failNextStart.getAndSet(false)) {
								throw new OutOfMemoryError("unable to create native thread: possibly out of memory");
							}
							super.start();
						}

					};
					thread.setDaemon(true);
					return thread;
				})) {
			AtomicInteger runs = new AtomicInteger();
			assertThatExceptionOfType(OutOfMemoryError.class)
				.isThrownBy(() -> engine.execute(operation(REJECT), "k", null, () -> "run " + runs.incrementAndGet()));
			assertThat(runs).hasValue(0);
			// The method never ran, so the next delivery must run it now, not get
			// IdempotencyInProgressException for a whole lock timeout (30 s here).
			assertThat(engine.execute(operation(REJECT), "k", null, () -> "run " + runs.incrementAndGet()))
				.isEqualTo("run 1");
		}
	}

	@Test
	void lockTimeoutBeyondTheNanosecondRangeIsRefusedWhenTheOperationIsResolved() {
		// 300 years: past what Duration.toNanos() can hold (about 292 years), which
		// would otherwise fail only after the record was acquired
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new OperationSettings(Duration.ofDays(365L * 300), Duration.ofHours(1),
					OnInProgress.REJECT, Duration.ofSeconds(5)))
			.withMessageContaining("lockTimeout");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1), OnInProgress.WAIT,
					Duration.ofDays(365L * 300)))
			.withMessageContaining("waitTimeout");
	}

	@Test
	void reSentAcquireOfATakeoverIsStillReportedAsATakeover() {
		MutableClock clock = new MutableClock();
		InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(100, clock);
		RecordKey key = new RecordKey(this.name, "k");
		Duration lease = Duration.ofSeconds(1);
		store.acquire(key, new AcquireRequest("crashed", lease, Duration.ofHours(1), null));
		clock.advance(Duration.ofSeconds(2));
		AcquireRequest successor = new AcquireRequest("successor", lease, Duration.ofHours(1), null);
		assertThat(store.acquire(key, successor)).isEqualTo(new AcquireResult.Acquired(2, true));
		// The reply was lost and the client sent the command again: what it finds is
		// still the takeover of a crashed attempt, to be counted "recovered".
		assertThat(store.acquire(key, successor)).isEqualTo(new AcquireResult.Acquired(2, true));
	}

	@Test
	void errorWhileEncodingReachesTheCallerEvenWhenTheRecordWasLost() {
		AssertionError getter = new AssertionError("getter asserts");
		TypedCodec throwing = new TypedCodec() {

			@Override
			public byte[] encode(@Nullable Object value) {
				throw getter;
			}

			@Override
			public @Nullable Object decode(byte[] bytes) {
				throw new UnsupportedOperationException();
			}

		};
		IdempotencyStore losing = new ForwardingStore(this.store) {

			@Override
			public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
				return false;
			}

		};
		Operation operation = new Operation(this.name, REJECT, throwing, "the test's key");
		try (IdempotencyEngine engine = new IdempotencyEngine(losing, IdempotencyDefaults.STANDARD, List.of())) {
			// Whichever exception is thrown, the Error (a broken getter, memory running
			// out) must not vanish: it is either thrown or carried as suppressed.
			assertThatExceptionOfType(Throwable.class)
				.isThrownBy(() -> engine.execute(operation, "k", null, () -> "value"))
				.satisfies((thrown) -> assertThat(
						(thrown == getter) || Arrays.asList(thrown.getSuppressed()).contains(getter))
					.as("%s carries the encoding Error", thrown)
					.isTrue());
		}
	}

	static final class MutableClock extends Clock {

		private final AtomicLong millis = new AtomicLong(1_700_000_000_000L);

		void advance(Duration duration) {
			this.millis.addAndGet(duration.toMillis());
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			return this;
		}

		@Override
		public Instant instant() {
			return Instant.ofEpochMilli(this.millis.get());
		}

		@Override
		public long millis() {
			return this.millis.get();
		}

	}

}
