package dev.idempotency.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.codec.ResultCodec.TypedCodec;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A returned value that its codec calls a failure releases its record, as a thrown
 * failure does, and reaches the caller unchanged.
 */
class ReturnedFailureTests {

	private static final OperationSettings SETTINGS = new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1),
			OnInProgress.REJECT, Duration.ofSeconds(5));

	private final List<String> calls = new CopyOnWriteArrayList<>();

	private final ForwardingStore store = new ForwardingStore(new InMemoryIdempotencyStore()) {

		@Override
		public boolean release(RecordKey key, String owner, long fence, Duration retention) {
			ReturnedFailureTests.this.calls.add("release fence " + fence);
			return super.release(key, owner, fence, retention);
		}

		@Override
		public boolean evict(RecordKey key) {
			ReturnedFailureTests.this.calls.add("evict");
			return super.evict(key);
		}

	};

	private final RecordingListener listener = new RecordingListener();

	private final IdempotencyEngine engine = new IdempotencyEngine(this.store, IdempotencyDefaults.STANDARD,
			List.of(this.listener));

	private final Operation operation = new Operation("returned-failures", SETTINGS, new FailingCodec(),
			"the test's key");

	@AfterEach
	void closeEngine() {
		this.engine.close();
	}

	@Test
	void returnedFailureIsReleasedCountedFailedAndTheRetryRunsAgain() throws Throwable {
		AtomicInteger runs = new AtomicInteger();
		Object first = this.engine.execute(this.operation, "k", null,
				() -> "failure-" + runs.incrementAndGet() + "-" + IdempotencyContext.current().fence());
		assertThat(first).isEqualTo("failure-1-1");
		assertThat(this.store.read(new RecordKey("returned-failures", "k")).orElseThrow().state())
			.isEqualTo(RecordState.FAILED);
		Object retry = this.engine.execute(this.operation, "k", null,
				() -> "ok-" + runs.incrementAndGet() + "-" + IdempotencyContext.current().fence());
		Object replay = this.engine.execute(this.operation, "k", null, () -> "ok-" + runs.incrementAndGet());
		assertThat(retry).isEqualTo("ok-2-2");
		assertThat(replay).isEqualTo("ok-2-2");
		assertThat(this.calls).containsExactly("release fence 1");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.FAILED, Outcome.EXECUTED, Outcome.REPLAYED);
	}

	@Test
	void returnedFailureOfAStageIsReleasedCountedFailedAndTheRetryRunsAgain() throws Exception {
		AtomicInteger runs = new AtomicInteger();
		Object first = this.engine
			.executeAsync(this.operation, "k", null,
					() -> CompletableFuture.completedFuture("failure-" + runs.incrementAndGet()))
			.get(30, TimeUnit.SECONDS);
		Object retry = this.engine
			.executeAsync(this.operation, "k", null,
					() -> CompletableFuture.completedFuture("ok-" + runs.incrementAndGet()))
			.get(30, TimeUnit.SECONDS);
		assertThat(first).isEqualTo("failure-1");
		assertThat(retry).isEqualTo("ok-2");
		assertThat(this.calls).containsExactly("release fence 1");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.FAILED, Outcome.EXECUTED);
	}

	// Strings starting with "failure" are failures
	private static final class FailingCodec implements TypedCodec {

		@Override
		public byte[] encode(@Nullable Object value) {
			return ((String) value).getBytes();
		}

		@Override
		public Object decode(byte[] bytes) {
			return new String(bytes);
		}

		@Override
		public boolean isFailure(@Nullable Object value) {
			return value instanceof String text && text.startsWith("failure");
		}

	}

}
