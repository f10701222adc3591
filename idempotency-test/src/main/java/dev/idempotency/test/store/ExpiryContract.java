package dev.idempotency.test.store;

import java.time.Duration;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.StoredResult;
import org.junit.jupiter.api.Test;

import static dev.idempotency.test.store.ContractFixtures.LEASE;
import static dev.idempotency.test.store.ContractFixtures.SHORT;
import static dev.idempotency.test.store.ContractFixtures.awaitStoreTime;
import static dev.idempotency.test.store.ContractFixtures.bytes;
import static dev.idempotency.test.store.ContractFixtures.poll;
import static dev.idempotency.test.store.ContractFixtures.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract of expiry on the store's clock: completed and failed records live for
 * their retention, records in progress for their lease and the retention past it.
 */
interface ExpiryContract extends StoreContract {

	@Test
	default void completedRecordExpiresAfterRetention() {
		store().acquire(key(), new AcquireRequest("a", LEASE, SHORT, null));
		store().complete(key(), "a", 1, StoredResult.of(bytes("x")), SHORT);
		AcquireResult result = poll(() -> store().acquire(key(), request("b")), Acquired.class::isInstance);
		assertThat(result).isEqualTo(new Acquired(1, false));
	}

	@Test
	default void failedRecordExpiresAfterRetention() {
		store().acquire(key(), new AcquireRequest("a", LEASE, SHORT, null));
		store().release(key(), "a", 1, SHORT);
		poll(() -> store().read(key()), (record) -> record.isEmpty());
		assertThat(store().acquire(key(), request("b"))).isEqualTo(new Acquired(1, false));
	}

	@Test
	default void recordInProgressLivesAtLeastAsLongAsItsLease() {
		store().acquire(key(), new AcquireRequest("a", Duration.ofSeconds(5), SHORT, null));
		awaitStoreTime(store(), SHORT.multipliedBy(2));
		assertThat(store().acquire(key(), request("b"))).isInstanceOf(InProgress.class);
	}

	@Test
	default void inProgressRecordOutlivesItsLeaseByRetention() {
		Duration lease = Duration.ofSeconds(1);
		Duration retention = Duration.ofSeconds(1);
		store().acquire(key(), new AcquireRequest("a", lease, retention, null));
		IdempotencyRecord record = store().read(key()).orElseThrow();
		assertThat(record.expiresAt()).isAfterOrEqualTo(record.leaseExpiresAt().plus(retention).minusMillis(5));
		// Past both the lease and the retention from acquire: the record is still there,
		// so the next attempt is a takeover with a higher fence, never fence 1 again
		awaitStoreTime(store(), retention.plusMillis(200));
		assertThat(store().acquire(key(), request("b"))).isEqualTo(new Acquired(2, true));
	}

}
