package dev.idempotency.test.store;

import java.time.Duration;
import java.time.Instant;

import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import org.junit.jupiter.api.Test;

import static dev.idempotency.test.store.ContractFixtures.LEASE;
import static dev.idempotency.test.store.ContractFixtures.RETENTION;
import static dev.idempotency.test.store.ContractFixtures.bytes;
import static dev.idempotency.test.store.ContractFixtures.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The contract of read and evict: the description of a record in each state, deleting it,
 * and the name of the store.
 */
interface ReadAndEvictContract extends StoreContract {

	@Test
	default void readDescribesRecordInProgress() {
		Instant before = Instant.now();
		store().acquire(key(), request("a"));
		IdempotencyRecord record = store().read(key()).orElseThrow();
		assertThat(record.key()).isEqualTo(key());
		assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(record.fence()).isEqualTo(1);
		assertThat(record.startedAt()).isCloseTo(before, within(Duration.ofMinutes(1)));
		assertThat(Duration.between(record.startedAt(), record.leaseExpiresAt())).isEqualTo(LEASE);
		assertThat(record.completedAt()).isNull();
		assertThat(record.resultStored()).isFalse();
		assertThat(record.expiresAt()).isNotNull();
		assertThat(Duration.between(record.startedAt(), record.expiresAt()))
			.isBetween(LEASE.plus(RETENTION).minusSeconds(5), LEASE.plus(RETENTION).plusSeconds(5));
	}

	@Test
	default void readDescribesCompletedRecord() {
		store().acquire(key(), request("a"));
		store().complete(key(), "a", 1, StoredResult.of(bytes("x")), Duration.ofHours(1));
		IdempotencyRecord record = store().read(key()).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.fence()).isEqualTo(1);
		assertThat(record.completedAt()).isNotNull().isAfterOrEqualTo(record.startedAt());
		assertThat(record.resultStored()).isTrue();
		assertThat(Duration.between(record.completedAt(), record.expiresAt())).isBetween(Duration.ofMinutes(59),
				Duration.ofMinutes(61));
	}

	@Test
	default void readDescribesUnreplayableCompletedRecord() {
		store().acquire(key(), request("a"));
		store().complete(key(), "a", 1, StoredResult.unreplayable("too large"), RETENTION);
		IdempotencyRecord record = store().read(key()).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.resultStored()).isFalse();
	}

	@Test
	default void readDescribesCompletedFailureAsCompletedWithoutAReplayableResult() {
		store().acquire(key(), request("a"));
		store().complete(key(), "a", 1, StoredResult.failure("com.example.Declined", "no"), RETENTION);
		IdempotencyRecord record = store().read(key()).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.completedAt()).isNotNull();
		assertThat(record.resultStored()).isFalse();
	}

	@Test
	default void readDescribesFailedRecord() {
		store().acquire(key(), request("a"));
		store().release(key(), "a", 1, Duration.ofHours(1));
		IdempotencyRecord record = store().read(key()).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.FAILED);
		assertThat(record.fence()).isEqualTo(1);
		assertThat(record.completedAt()).isNull();
		assertThat(record.resultStored()).isFalse();
		assertThat(Duration.between(record.startedAt(), record.expiresAt())).isBetween(Duration.ofMinutes(59),
				Duration.ofMinutes(61));
	}

	@Test
	default void evictDeletesRecordWhateverItsState() {
		store().acquire(key(), request("a"));
		assertThat(store().evict(key())).isTrue();
		assertThat(store().read(key())).isEmpty();
		assertThat(store().evict(key())).isFalse();
		assertThat(store().acquire(key(), request("b"))).isEqualTo(new Acquired(1, false));
		store().complete(key(), "b", 1, StoredResult.of(bytes("x")), RETENTION);
		assertThat(store().evict(key())).isTrue();
		assertThat(store().acquire(key(), request("c"))).isEqualTo(new Acquired(1, false));
	}

	@Test
	default void typeIsNamed() {
		assertThat(store().type()).isNotBlank();
	}

}
