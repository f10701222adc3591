package dev.idempotency.test.store;

import java.util.List;
import java.util.UUID;

import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.AcquireResult.KeyReused;
import dev.idempotency.store.BatchAcquire;
import dev.idempotency.store.BatchComplete;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import org.junit.jupiter.api.Test;

import static dev.idempotency.test.store.ContractFixtures.FINGERPRINT_A;
import static dev.idempotency.test.store.ContractFixtures.FINGERPRINT_B;
import static dev.idempotency.test.store.ContractFixtures.RETENTION;
import static dev.idempotency.test.store.ContractFixtures.bytes;
import static dev.idempotency.test.store.ContractFixtures.newKey;
import static dev.idempotency.test.store.ContractFixtures.request;
import static dev.idempotency.test.store.ContractFixtures.withFingerprint;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract of batches: acquireAll and completeAll answer every item, in order, as one
 * call after the other would.
 */
interface BatchContract extends StoreContract {

	@Test
	default void acquireAllAnswersEveryItemInOrderAsAcquireWould() {
		RecordKey fresh = newKey();
		RecordKey completed = newKey();
		RecordKey inProgress = newKey();
		RecordKey reused = newKey();
		RecordKey failed = newKey();
		store().acquire(completed, request("earlier"));
		store().complete(completed, "earlier", 1, StoredResult.of(bytes("stored")), RETENTION);
		store().acquire(inProgress, request("other"));
		store().acquire(reused, withFingerprint("other", FINGERPRINT_A));
		store().acquire(failed, request("earlier"));
		store().release(failed, "earlier", 1, RETENTION);
		List<AcquireResult> results = store().acquireAll(List.of(new BatchAcquire(fresh, request("a")),
				new BatchAcquire(completed, request("b")), new BatchAcquire(inProgress, request("c")),
				new BatchAcquire(reused, withFingerprint("d", FINGERPRINT_B)), new BatchAcquire(failed, request("e"))));
		assertThat(results).hasSize(5);
		assertThat(results.get(0)).isEqualTo(new Acquired(1, false));
		assertThat(((Completed) results.get(1)).result().body()).isEqualTo(bytes("stored"));
		assertThat(results.get(2)).isInstanceOf(InProgress.class);
		assertThat(results.get(3)).isEqualTo(new KeyReused());
		assertThat(results.get(4)).isEqualTo(new Acquired(2, false));
		assertThat(store().acquire(fresh, request("f"))).isInstanceOf(InProgress.class);
		assertThat(store().acquire(failed, request("f"))).isInstanceOf(InProgress.class);
	}

	// On Redis Cluster, keys with one hash tag share a slot, and a batch of them runs in
	// one script call: each item still gets its own answer
	@Test
	default void acquireAllAndCompleteAllOfKeysSharingAHashTagAnswerEveryItemAsAlone() {
		String tag = "{" + UUID.randomUUID() + "}";
		RecordKey fresh = new RecordKey("contract", tag + "fresh");
		RecordKey completed = new RecordKey("contract", tag + "completed");
		RecordKey inProgress = new RecordKey("contract", tag + "in-progress");
		RecordKey reused = new RecordKey("contract", tag + "reused");
		RecordKey mine = new RecordKey("contract", tag + "mine");
		store().acquire(completed, request("earlier"));
		store().complete(completed, "earlier", 1, StoredResult.of(bytes("stored")), RETENTION);
		store().acquire(inProgress, request("other"));
		store().acquire(reused, withFingerprint("other", FINGERPRINT_A));
		store().acquire(mine, request("a"));
		List<AcquireResult> results = store().acquireAll(List.of(new BatchAcquire(fresh, request("a")),
				new BatchAcquire(completed, request("a")), new BatchAcquire(inProgress, request("a")),
				new BatchAcquire(reused, withFingerprint("a", FINGERPRINT_B)), new BatchAcquire(mine, request("a")),
				new BatchAcquire(fresh, request("b"))));
		assertThat(results.get(0)).isEqualTo(new Acquired(1, false));
		assertThat(((Completed) results.get(1)).result().body()).isEqualTo(bytes("stored"));
		assertThat(results.get(2)).isInstanceOf(InProgress.class);
		assertThat(results.get(3)).isEqualTo(new KeyReused());
		assertThat(results.get(4)).isEqualTo(new Acquired(1, false));
		assertThat(results.get(5)).isInstanceOf(InProgress.class);
		List<Boolean> done = store()
			.completeAll(List.of(new BatchComplete(fresh, "a", 1, StoredResult.of(bytes("one")), RETENTION),
					new BatchComplete(inProgress, "a", 1, StoredResult.of(bytes("lost")), RETENTION),
					new BatchComplete(mine, "a", 1, StoredResult.unreplayable("too large"), RETENTION)));
		assertThat(done).containsExactly(true, false, true);
		assertThat(((Completed) store().acquire(fresh, request("c"))).result().body()).isEqualTo(bytes("one"));
		assertThat(((Completed) store().acquire(mine, request("c"))).result().unreplayableReason())
			.isEqualTo("too large");
		assertThat(store().read(inProgress).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
	}

	@Test
	default void acquireAllOfOneKeyTwiceIsTheSameAsOneAfterTheOther() {
		RecordKey sameOwner = newKey();
		List<AcquireResult> results = store()
			.acquireAll(List.of(new BatchAcquire(key(), request("a")), new BatchAcquire(key(), request("b")),
					new BatchAcquire(sameOwner, request("c")), new BatchAcquire(sameOwner, request("c"))));
		assertThat(results.get(0)).isEqualTo(new Acquired(1, false));
		assertThat(results.get(1)).isInstanceOf(InProgress.class);
		assertThat(results.subList(2, 4)).containsOnly(new Acquired(1, false));
	}

	@Test
	default void completeAllCompletesEveryItemItOwnsAndReportsTheOthers() {
		RecordKey second = newKey();
		RecordKey lost = newKey();
		store().acquireAll(List.of(new BatchAcquire(key(), request("a")), new BatchAcquire(second, request("a")),
				new BatchAcquire(lost, request("a"))));
		List<Boolean> completed = store()
			.completeAll(List.of(new BatchComplete(key(), "a", 1, StoredResult.of(bytes("one")), RETENTION),
					new BatchComplete(second, "a", 1, StoredResult.unreplayable("too large"), RETENTION),
					new BatchComplete(lost, "a", 2, StoredResult.of(bytes("stale")), RETENTION)));
		assertThat(completed).containsExactly(true, true, false);
		assertThat(((Completed) store().acquire(key(), request("b"))).result().body()).isEqualTo(bytes("one"));
		assertThat(((Completed) store().acquire(second, request("b"))).result().unreplayableReason())
			.isEqualTo("too large");
		assertThat(store().read(lost).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
	}

	@Test
	default void completeAllIsIdempotentForTheSameOwner() {
		RecordKey second = newKey();
		store().acquireAll(List.of(new BatchAcquire(key(), request("a")), new BatchAcquire(second, request("a"))));
		List<BatchComplete> batch = List.of(new BatchComplete(key(), "a", 1, StoredResult.of(bytes("one")), RETENTION),
				new BatchComplete(second, "a", 1, StoredResult.of(bytes("two")), RETENTION));
		assertThat(store().completeAll(batch)).containsExactly(true, true);
		assertThat(store().completeAll(batch)).containsExactly(true, true);
		assertThat(((Completed) store().acquire(second, request("b"))).result().body()).isEqualTo(bytes("two"));
	}

	@Test
	default void emptyBatchesAnswerNothing() {
		assertThat(store().acquireAll(List.of())).isEmpty();
		assertThat(store().completeAll(List.of())).isEmpty();
	}

}
