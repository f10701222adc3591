package dev.idempotency.test.store;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import org.junit.jupiter.api.Test;

import static dev.idempotency.test.store.ContractFixtures.LEASE;
import static dev.idempotency.test.store.ContractFixtures.RETENTION;
import static dev.idempotency.test.store.ContractFixtures.SHORT;
import static dev.idempotency.test.store.ContractFixtures.awaitStoreTime;
import static dev.idempotency.test.store.ContractFixtures.bytes;
import static dev.idempotency.test.store.ContractFixtures.newKey;
import static dev.idempotency.test.store.ContractFixtures.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract of renew: extending the lease of an attempt, and keeping its record for
 * the retention past it.
 */
interface RenewContract extends StoreContract {

	@Test
	default void renewExtendsLeaseBeyondTheOriginalOne() {
		store().acquire(key(), new AcquireRequest("a", SHORT, SHORT, null));
		assertThat(store().renew(key(), "a", 1, Duration.ofSeconds(5), RETENTION)).isTrue();
		awaitStoreTime(store(), SHORT.multipliedBy(2));
		InProgress inProgress = (InProgress) store().acquire(key(), request("b"));
		assertThat(inProgress.fence()).isEqualTo(1);
		assertThat(inProgress.leaseRemaining()).isGreaterThan(Duration.ofSeconds(3));
		IdempotencyRecord record = store().read(key()).orElseThrow();
		assertThat(record.expiresAt()).isAfter(record.startedAt().plusSeconds(3));
	}

	@Test
	default void renewOfItsOwnCompletedOrFailedRecordSucceedsAndChangesNothing() {
		store().acquire(key(), request("a"));
		store().complete(key(), "a", 1, StoredResult.of(bytes("x")), RETENTION);
		assertThat(store().renew(key(), "a", 1, LEASE, RETENTION)).isTrue();
		assertThat(store().read(key()).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
		RecordKey other = newKey();
		store().acquire(other, request("a"));
		store().release(other, "a", 1, RETENTION);
		assertThat(store().renew(other, "a", 1, LEASE, RETENTION)).isTrue();
		assertThat(store().read(other).orElseThrow().state()).isEqualTo(RecordState.FAILED);
		assertThat(store().renew(other, "b", 1, LEASE, RETENTION)).isFalse();
	}

	@Test
	default void renewAsyncAnswersLikeRenew() throws Exception {
		store().acquire(key(), new AcquireRequest("a", SHORT, SHORT, null));
		assertThat(store().renewAsync(key(), "a", 1, LEASE, RETENTION).toCompletableFuture().get(10, TimeUnit.SECONDS))
			.isTrue();
		assertThat(store().renewAsync(key(), "b", 1, LEASE, RETENTION).toCompletableFuture().get(10, TimeUnit.SECONDS))
			.isFalse();
		assertThat(((InProgress) store().acquire(key(), request("c"))).leaseRemaining())
			.isGreaterThan(Duration.ofSeconds(20));
	}

	@Test
	default void renewKeepsTheRecordForRetentionPastTheRenewedLease() {
		store().acquire(key(), new AcquireRequest("a", SHORT, SHORT, null));
		assertThat(store().renew(key(), "a", 1, Duration.ofSeconds(5), Duration.ofSeconds(60))).isTrue();
		IdempotencyRecord record = store().read(key()).orElseThrow();
		assertThat(record.expiresAt()).isAfterOrEqualTo(record.leaseExpiresAt().plusSeconds(59));
	}

}
