package dev.idempotency.test.store;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import org.junit.jupiter.api.Test;

import static dev.idempotency.test.store.ContractFixtures.LEASE;
import static dev.idempotency.test.store.ContractFixtures.RETENTION;
import static dev.idempotency.test.store.ContractFixtures.SHORT;
import static dev.idempotency.test.store.ContractFixtures.bytes;
import static dev.idempotency.test.store.ContractFixtures.poll;
import static dev.idempotency.test.store.ContractFixtures.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract of ownership and fencing: a transition of another owner, of a stale fence
 * or of a missing record fails and changes nothing.
 */
interface FencingContract extends StoreContract {

	@Test
	default void transitionsOfAnotherOwnerOrFenceFail() {
		store().acquire(key(), request("a"));
		assertThat(store().complete(key(), "b", 1, StoredResult.of(bytes("x")), RETENTION)).isFalse();
		assertThat(store().complete(key(), "a", 2, StoredResult.of(bytes("x")), RETENTION)).isFalse();
		assertThat(store().release(key(), "b", 1, RETENTION)).isFalse();
		assertThat(store().release(key(), "a", 2, RETENTION)).isFalse();
		assertThat(store().renew(key(), "b", 1, LEASE, RETENTION)).isFalse();
		assertThat(store().renew(key(), "a", 2, LEASE, RETENTION)).isFalse();
		assertThat(store().read(key()).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
	}

	@Test
	default void transitionsOfMissingRecordFail() {
		assertThat(store().complete(key(), "a", 1, StoredResult.of(bytes("x")), RETENTION)).isFalse();
		assertThat(store().release(key(), "a", 1, RETENTION)).isFalse();
		assertThat(store().renew(key(), "a", 1, LEASE, RETENTION)).isFalse();
		assertThat(store().read(key())).isEmpty();
	}

	@Test
	default void staleOwnerLosesEveryTransitionAfterTakeover() {
		store().acquire(key(), new AcquireRequest("zombie", SHORT, RETENTION, null));
		poll(() -> store().acquire(key(), request("successor")), Acquired.class::isInstance);
		assertThat(store().renew(key(), "zombie", 1, LEASE, RETENTION)).isFalse();
		assertThat(store().complete(key(), "zombie", 1, StoredResult.of(bytes("zombie")), RETENTION)).isFalse();
		assertThat(store().release(key(), "zombie", 1, RETENTION)).isFalse();
		assertThat(store().complete(key(), "successor", 2, StoredResult.of(bytes("successor")), RETENTION)).isTrue();
		assertThat(store().renew(key(), "zombie", 1, LEASE, RETENTION)).isFalse();
		assertThat(store().complete(key(), "zombie", 1, StoredResult.of(bytes("zombie")), RETENTION)).isFalse();
		assertThat(store().release(key(), "zombie", 1, RETENTION)).isFalse();
		Completed completed = (Completed) store().acquire(key(), request("c"));
		assertThat(completed.fence()).isEqualTo(2);
		assertThat(completed.result().body()).isEqualTo(bytes("successor"));
	}

	@Test
	default void staleOwnersFailureCannotOverwriteItsSuccessorsResult() {
		store().acquire(key(), new AcquireRequest("zombie", SHORT, RETENTION, null));
		poll(() -> store().acquire(key(), request("successor")), Acquired.class::isInstance);
		StoredResult zombies = StoredResult.failure("com.example.Declined", "zombie's");
		assertThat(store().complete(key(), "zombie", 1, zombies, RETENTION)).isFalse();
		assertThat(store().complete(key(), "successor", 2, StoredResult.of(bytes("successor")), RETENTION)).isTrue();
		assertThat(store().complete(key(), "zombie", 1, zombies, RETENTION)).isFalse();
		Completed completed = (Completed) store().acquire(key(), request("c"));
		assertThat(completed.fence()).isEqualTo(2);
		assertThat(completed.result().isFailure()).isFalse();
		assertThat(completed.result().body()).isEqualTo(bytes("successor"));
	}

}
