package dev.idempotency.engine;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import dev.idempotency.BatchOutcome;
import dev.idempotency.BatchOutcome.Executed;
import dev.idempotency.BatchOutcome.Replayed;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class InMemoryBatchExecutionTests extends BatchExecutionTests {

	@Override
	protected IdempotencyStore createStore() {
		return new InMemoryIdempotencyStore();
	}

	@Test
	void storeFailingInTheMiddleOfTheAcquireFailsTheBatchAndAbandonsWhatItTook() {
		IdempotencyStore memory = new InMemoryIdempotencyStore();
		IdempotencyStore failsOnSecond = new ForwardingStore(memory) {

			@Override
			public AcquireResult acquire(RecordKey key, AcquireRequest request) {
				if (key.key().equals("second")) {
					throw new IdempotencyStoreException("store went away");
				}
				return super.acquire(key, request);
			}

		};
		RecordingListener listener = new RecordingListener();
		String name = "failing-" + UUID.randomUUID();
		try (IdempotencyEngine engine = new IdempotencyEngine(failsOnSecond, IdempotencyDefaults.STANDARD,
				List.of(listener))) {
			assertThatExceptionOfType(IdempotencyStoreException.class)
				.isThrownBy(() -> executor(engine).executeAll(name,
						List.of(new Item("first"), new Item("second"), new Item("third")), Item::id, String.class,
						this::effect))
				.withMessage("store went away");
			assertThat(effects("first") + effects("second") + effects("third")).isZero();
			assertThat(listener.outcomes()).containsExactly(Outcome.STORE_ERROR, Outcome.STORE_ERROR,
					Outcome.STORE_ERROR);
			assertThat(memory.acquire(new RecordKey(name, "first"),
					new AcquireRequest("next", Duration.ofMinutes(1), Duration.ofHours(1), null)))
				.isEqualTo(new AcquireResult.Acquired(2, false));
		}
	}

	@Test
	void observerSeesOneDetachedCallPerItemWithItsOutcome() {
		List<String> events = new CopyOnWriteArrayList<>();
		IdempotencyObserver observer = (name, key) -> {
			events.add("start " + key);
			return new IdempotencyObserver.Call() {

				@Override
				public void detach() {
					events.add("detach " + key);
				}

				@Override
				public void outcome(Outcome outcome) {
					events.add(outcome.tag() + " " + key);
				}

				@Override
				public void end(Throwable error) {
					events.add("end " + key + ((error != null) ? " " + error.getMessage() : ""));
				}

			};
		};
		try (IdempotencyEngine engine = new IdempotencyEngine(new InMemoryIdempotencyStore(),
				IdempotencyDefaults.STANDARD, List.of(), observer)) {
			executor(engine).executeAll("observed", List.of(new Item("a"), new Item("fails"), new Item("a")), Item::id,
					String.class, (item) -> {
						if (item.id().equals("fails")) {
							throw new IllegalStateException("boom");
						}
						return effect(item);
					});
		}
		assertThat(events).containsExactly("start a", "detach a", "start fails", "detach fails", "start a", "detach a",
				"failed fails", "executed a", "end a", "end fails boom", "replayed a", "end a");
	}

	@Test
	void storeFailingWithProceedRunsTheWorkOncePerKeyUnprotected() {
		IdempotencyStore broken = new ForwardingStore(new InMemoryIdempotencyStore()) {

			@Override
			public AcquireResult acquire(RecordKey key, AcquireRequest request) {
				throw new IdempotencyStoreException("store went away");
			}

		};
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		RecordingListener listener = new RecordingListener();
		try (IdempotencyEngine engine = new IdempotencyEngine(broken, new IdempotencyDefaults(standard.settings(),
				StoreFailurePolicy.PROCEED, standard.maxKeyLength(), standard.maxResultSize(), standard.operations()),
				List.of(listener))) {
			IdempotentExecutor executor = executor(engine);
			List<BatchOutcome<Item, String>> outcomes = executor.executeAll("proceed-" + UUID.randomUUID(),
					List.of(new Item("a"), new Item("b"), new Item("a")), Item::id, String.class, this::effect);
			assertThat(outcomes).containsExactly(new Executed<>(new Item("a"), "a", "a#1"),
					new Executed<>(new Item("b"), "b", "b#1"), new Replayed<>(new Item("a"), "a", "a#1"));
			assertThat(listener.outcomes()).containsExactlyInAnyOrder(Outcome.BYPASSED, Outcome.BYPASSED,
					Outcome.REPLAYED);
		}
	}

}
