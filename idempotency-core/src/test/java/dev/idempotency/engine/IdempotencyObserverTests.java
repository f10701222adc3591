package dev.idempotency.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for how the engine drives an {@link IdempotencyObserver}.
 */
class IdempotencyObserverTests {

	private static final Operation OPERATION = new Operation("Payments.charge",
			new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(1), OnInProgress.REJECT,
					Duration.ofSeconds(1)),
			new JacksonResultCodec(JsonMapper.builder().build()).forType(ResolvableType.forClass(String.class)),
			"the test's key");

	private final RecordingObserver observer = new RecordingObserver();

	private final RecordingListener listener = new RecordingListener();

	private IdempotencyEngine engine = new IdempotencyEngine(new InMemoryIdempotencyStore(),
			IdempotencyDefaults.STANDARD, List.of(this.listener), this.observer);

	@AfterEach
	void closeEngine() {
		this.engine.close();
	}

	@Test
	void observedCallIsCurrentWhileTheMethodRunsAndHearsItsOutcome() throws Throwable {
		Object result = this.engine.execute(OPERATION, "k", null, () -> {
			assertThat(RecordingObserver.current.get()).isEqualTo("Payments.charge:k");
			return "done";
		});
		assertThat(result).isEqualTo("done");
		assertThat(RecordingObserver.current.get()).isNull();
		assertThat(this.observer.events).containsExactly("start Payments.charge:k", "outcome EXECUTED", "end null");
	}

	@Test
	void replayIsObservedWithoutRunningTheMethod() throws Throwable {
		this.engine.execute(OPERATION, "k", null, () -> "done");
		this.observer.events.clear();
		this.engine.execute(OPERATION, "k", null, () -> "again");
		assertThat(this.observer.events).containsExactly("start Payments.charge:k", "outcome REPLAYED", "end null");
	}

	@Test
	void failureEndsWithTheMethodsOwnException() {
		IllegalStateException boom = new IllegalStateException("card declined");
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.engine.execute(OPERATION, "k", null, () -> {
				throw boom;
			}))
			.isSameAs(boom);
		assertThat(this.observer.events).containsExactly("start Payments.charge:k", "outcome FAILED", "end " + boom);
	}

	@Test
	void asyncCallDetachesFromTheCallersThreadAndEndsWhenItsValueArrives() throws Exception {
		CompletableFuture<String> pending = new CompletableFuture<>();
		CompletableFuture<@Nullable Object> call = this.engine.executeAsync(OPERATION, "k", null, () -> {
			assertThat(RecordingObserver.current.get()).isEqualTo("Payments.charge:k");
			return pending;
		});
		assertThat(RecordingObserver.current.get()).isNull();
		assertThat(this.observer.events).containsExactly("start Payments.charge:k", "detach");
		pending.complete("done");
		assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(this.observer.events).containsExactly("start Payments.charge:k", "detach", "outcome EXECUTED",
				"end null");
	}

	@Test
	void asyncReplayEndsOnTheCallersThreadWithoutDetaching() throws Exception {
		this.engine.executeAsync(OPERATION, "k", null, () -> CompletableFuture.completedFuture("done"))
			.get(10, TimeUnit.SECONDS);
		this.observer.events.clear();
		assertThat(this.engine.executeAsync(OPERATION, "k", null, () -> CompletableFuture.completedFuture("again")))
			.isCompletedWithValue("done");
		assertThat(this.observer.events).containsExactly("start Payments.charge:k", "outcome REPLAYED", "end null");
	}

	@Test
	void asyncFailureEndsWithTheStagesOwnException() {
		IllegalStateException boom = new IllegalStateException("card declined");
		CompletableFuture<@Nullable Object> call = this.engine.executeAsync(OPERATION, "k", null,
				() -> CompletableFuture.supplyAsync(() -> {
					throw boom;
				}));
		assertThatExceptionOfType(CompletionException.class).isThrownBy(call::join).withCause(boom);
		assertThat(this.observer.events).containsExactly("start Payments.charge:k", "detach", "outcome FAILED",
				"end " + boom);
	}

	@Test
	void observerSeesTheHashedKey() throws Throwable {
		String longKey = "x".repeat(201);
		this.engine.execute(OPERATION, longKey, null, () -> "done");
		assertThat(this.observer.events).first()
			.isEqualTo("start Payments.charge:sha256:" + HashedKeys.sha256Hex(longKey));
	}

	@Test
	void callRejectedForItsKeyIsNotObserved() {
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.engine.execute(OPERATION, " ", null, () -> "done"));
		assertThat(this.observer.events).isEmpty();
	}

	@Test
	void observerThatFailsToStartNeverBreaksACall() throws Throwable {
		this.engine.close();
		this.engine = new IdempotencyEngine(new InMemoryIdempotencyStore(), IdempotencyDefaults.STANDARD,
				List.of(this.listener), (name, key) -> {
					throw new IllegalStateException("tracer down");
				});
		assertThat(this.engine.execute(OPERATION, "k", null, () -> "fine")).isEqualTo("fine");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED);
	}

	@Test
	void observedCallThatFailsNeverBreaksACall() throws Throwable {
		this.engine.close();
		this.engine = new IdempotencyEngine(new InMemoryIdempotencyStore(), IdempotencyDefaults.STANDARD,
				List.of(this.listener), (name, key) -> new IdempotencyObserver.Call() {

					@Override
					public void outcome(Outcome outcome) {
						throw new IllegalStateException("tracer down");
					}

					@Override
					public void end(@Nullable Throwable error) {
						throw new IllegalStateException("tracer down");
					}

				});
		assertThat(this.engine.execute(OPERATION, "k", null, () -> "fine")).isEqualTo("fine");
		assertThat(this.listener.outcomes()).containsExactly(Outcome.EXECUTED);
	}

	static final class RecordingObserver implements IdempotencyObserver {

		static final ThreadLocal<String> current = new ThreadLocal<>();

		final List<String> events = new CopyOnWriteArrayList<>();

		@Override
		public Call start(String name, String key) {
			this.events.add("start " + name + ":" + key);
			current.set(name + ":" + key);
			return new Call() {

				@Override
				public void outcome(Outcome outcome) {
					RecordingObserver.this.events.add("outcome " + outcome);
				}

				@Override
				public void detach() {
					current.remove();
					RecordingObserver.this.events.add("detach");
				}

				@Override
				public void end(@Nullable Throwable error) {
					current.remove();
					RecordingObserver.this.events.add("end " + error);
				}

			};
		}

	}

}
