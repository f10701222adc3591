package dev.idempotency.test.store;

import java.util.concurrent.TimeUnit;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import org.junit.jupiter.api.Test;

import static dev.idempotency.test.store.ContractFixtures.RETENTION;
import static dev.idempotency.test.store.ContractFixtures.SHORT;
import static dev.idempotency.test.store.ContractFixtures.awaitStoreTime;
import static dev.idempotency.test.store.ContractFixtures.bytes;
import static dev.idempotency.test.store.ContractFixtures.newKey;
import static dev.idempotency.test.store.ContractFixtures.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract of complete, release and abandon: the result a completion stores is
 * replayed exactly, a release lets the next attempt in, and each is idempotent for its
 * owner.
 */
interface CompleteAndReleaseContract extends StoreContract {

	@Test
	default void completedResultIsReplayedWithExactBytes() {
		byte[] body = new byte[512];
		for (int i = 0; i < body.length; i++) {
			body[i] = (byte) i;
		}
		store().acquire(key(), request("a"));
		assertThat(store().complete(key(), "a", 1, StoredResult.of(body.clone()), RETENTION)).isTrue();
		Completed completed = (Completed) store().acquire(key(), request("b"));
		assertThat(completed.fence()).isEqualTo(1);
		assertThat(completed.result().body()).isEqualTo(body);
		assertThat(completed.result().isReplayable()).isTrue();
	}

	@Test
	default void emptyBodyIsReplayed() {
		store().acquire(key(), request("a"));
		store().complete(key(), "a", 1, StoredResult.of(new byte[0]), RETENTION);
		Completed completed = (Completed) store().acquire(key(), request("b"));
		assertThat(completed.result().body()).isEmpty();
		assertThat(completed.result().isReplayable()).isTrue();
	}

	@Test
	default void unreplayableReasonIsReplayed() {
		String reason = "result of 2 MB exceeds max-result-size 1 MB — ünïcødé";
		store().acquire(key(), request("a"));
		store().complete(key(), "a", 1, StoredResult.unreplayable(reason), RETENTION);
		Completed completed = (Completed) store().acquire(key(), request("b"));
		assertThat(completed.result().isReplayable()).isFalse();
		assertThat(completed.result().unreplayableReason()).isEqualTo(reason);
		assertThat(completed.result().body()).isEmpty();
	}

	@Test
	default void failureIsReplayedWithItsTypeAndMessage() {
		String message = "card declined: ünïcødé ✓ 🃏\r\nsecond line\ttab \0 nul";
		store().acquire(key(), request("a"));
		assertThat(store().complete(key(), "a", 1, StoredResult.failure("com.example.CardDeclinedException", message),
				RETENTION))
			.isTrue();
		Completed completed = (Completed) store().acquire(key(), request("b"));
		assertThat(completed.fence()).isEqualTo(1);
		assertThat(completed.result().isFailure()).isTrue();
		assertThat(completed.result().isReplayable()).isFalse();
		assertThat(completed.result().failureType()).isEqualTo("com.example.CardDeclinedException");
		assertThat(completed.result().failureMessage()).isEqualTo(message);
		assertThat(completed.result().unreplayableReason()).isNull();
		assertThat(completed.result().body()).isEmpty();
	}

	@Test
	default void failureWithoutMessageIsReplayedWithoutMessageAndAnEmptyOneAsEmpty() {
		RecordKey empty = newKey();
		store().acquire(key(), request("a"));
		store().complete(key(), "a", 1, StoredResult.failure("com.example.Declined", null), RETENTION);
		store().acquire(empty, request("a"));
		store().complete(empty, "a", 1, StoredResult.failure("com.example.Declined", ""), RETENTION);
		StoredResult withoutMessage = ((Completed) store().acquire(key(), request("b"))).result();
		assertThat(withoutMessage.failureType()).isEqualTo("com.example.Declined");
		assertThat(withoutMessage.failureMessage()).isNull();
		assertThat(((Completed) store().acquire(empty, request("b"))).result().failureMessage()).isEmpty();
	}

	@Test
	default void resultsAndUnreplayableReasonsAreNeverFailures() {
		RecordKey unreplayable = newKey();
		store().acquire(key(), request("a"));
		store().complete(key(), "a", 1, StoredResult.of(bytes("\0failure")), RETENTION);
		store().acquire(unreplayable, request("a"));
		store().complete(unreplayable, "a", 1, StoredResult.unreplayable("failure"), RETENTION);
		assertThat(((Completed) store().acquire(key(), request("b"))).result().isFailure()).isFalse();
		assertThat(((Completed) store().acquire(unreplayable, request("b"))).result().isFailure()).isFalse();
	}

	@Test
	default void completeWithAFailureIsIdempotentForTheSameOwner() {
		store().acquire(key(), request("a"));
		StoredResult failure = StoredResult.failure("com.example.Declined", "first");
		assertThat(store().complete(key(), "a", 1, failure, RETENTION)).isTrue();
		assertThat(store().complete(key(), "a", 1, failure, RETENTION)).isTrue();
		assertThat(((Completed) store().acquire(key(), request("b"))).result().failureMessage()).isEqualTo("first");
	}

	@Test
	default void completeIsIdempotentForTheSameOwner() {
		store().acquire(key(), request("a"));
		assertThat(store().complete(key(), "a", 1, StoredResult.of(bytes("first")), RETENTION)).isTrue();
		assertThat(store().complete(key(), "a", 1, StoredResult.of(bytes("second")), RETENTION)).isTrue();
		Completed completed = (Completed) store().acquire(key(), request("b"));
		assertThat(completed.result().body()).isEqualTo(bytes("first"));
		assertThat(store().release(key(), "a", 1, RETENTION)).isFalse();
	}

	@Test
	default void ownerCompletesAfterItsLeaseRanOutWhileNobodyTookOver() {
		store().acquire(key(), new AcquireRequest("a", SHORT, RETENTION, null));
		awaitStoreTime(store(), SHORT);
		assertThat(store().complete(key(), "a", 1, StoredResult.of(bytes("late")), RETENTION)).isTrue();
		assertThat(store().acquire(key(), request("b"))).isInstanceOf(Completed.class);
	}

	@Test
	default void releaseMarksFailedAndNextAcquireGetsNextFence() {
		store().acquire(key(), request("a"));
		assertThat(store().release(key(), "a", 1, RETENTION)).isTrue();
		IdempotencyRecord failed = store().read(key()).orElseThrow();
		assertThat(failed.state()).isEqualTo(RecordState.FAILED);
		assertThat(failed.fence()).isEqualTo(1);
		assertThat(store().acquire(key(), request("b"))).isEqualTo(new Acquired(2, false));
		assertThat(store().release(key(), "b", 2, RETENTION)).isTrue();
		assertThat(store().acquire(key(), request("c"))).isEqualTo(new Acquired(3, false));
	}

	@Test
	default void releaseIsIdempotentForTheSameOwner() {
		store().acquire(key(), request("a"));
		assertThat(store().release(key(), "a", 1, RETENTION)).isTrue();
		assertThat(store().release(key(), "a", 1, RETENTION)).isTrue();
		assertThat(store().complete(key(), "a", 1, StoredResult.of(bytes("x")), RETENTION)).isFalse();
		assertThat(store().read(key()).orElseThrow().state()).isEqualTo(RecordState.FAILED);
	}

	@Test
	default void abandonReleasesWhatAnAcquireOfThisOwnerTook() throws Exception {
		store().acquire(key(), request("a"));
		assertThat(store().abandon(key(), "b", RETENTION).toCompletableFuture().get(10, TimeUnit.SECONDS)).isFalse();
		assertThat(store().read(key()).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(store().abandon(key(), "a", RETENTION).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
		IdempotencyRecord failed = store().read(key()).orElseThrow();
		assertThat(failed.state()).isEqualTo(RecordState.FAILED);
		assertThat(failed.fence()).isEqualTo(1);
		assertThat(store().acquire(key(), request("b"))).isEqualTo(new Acquired(2, false));
		assertThat(store().abandon(newKey(), "a", RETENTION).toCompletableFuture().get(10, TimeUnit.SECONDS)).isFalse();
	}

	@Test
	default void abandonLeavesACompletedRecordAlone() throws Exception {
		store().acquire(key(), request("a"));
		store().complete(key(), "a", 1, StoredResult.of(bytes("x")), RETENTION);
		assertThat(store().abandon(key(), "a", RETENTION).toCompletableFuture().get(10, TimeUnit.SECONDS)).isFalse();
		assertThat(store().acquire(key(), request("b"))).isInstanceOf(Completed.class);
	}

}
