package dev.idempotency.test.store;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.AcquireResult.KeyReused;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import org.junit.jupiter.api.Test;

import static dev.idempotency.test.store.ContractFixtures.FINGERPRINT_A;
import static dev.idempotency.test.store.ContractFixtures.FINGERPRINT_B;
import static dev.idempotency.test.store.ContractFixtures.LEASE;
import static dev.idempotency.test.store.ContractFixtures.RETENTION;
import static dev.idempotency.test.store.ContractFixtures.SHORT;
import static dev.idempotency.test.store.ContractFixtures.awaitStoreTime;
import static dev.idempotency.test.store.ContractFixtures.bytes;
import static dev.idempotency.test.store.ContractFixtures.newKey;
import static dev.idempotency.test.store.ContractFixtures.poll;
import static dev.idempotency.test.store.ContractFixtures.request;
import static dev.idempotency.test.store.ContractFixtures.withFingerprint;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract of acquire: claiming a key, finding a live lease, taking over an expired
 * one, and telling a reused key by its fingerprint.
 */
interface AcquireContract extends StoreContract {

	@Test
	default void newKeyIsAcquiredWithFenceOne() {
		assertThat(store().acquire(key(), request("a"))).isEqualTo(new Acquired(1, false));
	}

	@Test
	default void liveLeaseIsReportedAsInProgressWithRemainingLease() {
		store().acquire(key(), request("a"));
		InProgress inProgress = (InProgress) store().acquire(key(), request("b"));
		assertThat(inProgress.fence()).isEqualTo(1);
		assertThat(inProgress.leaseRemaining()).isPositive().isLessThanOrEqualTo(LEASE);
	}

	@Test
	default void expiredLeaseIsTakenOverWithNextFence() {
		store().acquire(key(), new AcquireRequest("a", SHORT, RETENTION, null));
		AcquireResult takeover = poll(() -> store().acquire(key(), request("b")),
				(result) -> !(result instanceof InProgress));
		assertThat(takeover).isEqualTo(new Acquired(2, true));
		assertThat(store().acquire(key(), request("c"))).isInstanceOf(InProgress.class);
	}

	@Test
	default void reSentAcquireFindsItsOwnAttempt() {
		assertThat(store().acquire(key(), request("a"))).isEqualTo(new Acquired(1, false));
		assertThat(store().acquire(key(), request("a"))).isEqualTo(new Acquired(1, false));
		assertThat(store().acquire(key(), request("b"))).isInstanceOf(InProgress.class);
		assertThat(store().complete(key(), "a", 1, StoredResult.of(bytes("x")), RETENTION)).isTrue();
	}

	@Test
	default void reSentAcquireAfterATakeoverIsStillATakeoverWithItsFenceAndStartsItsLeaseAgain() {
		store().acquire(key(), new AcquireRequest("a", SHORT, RETENTION, null));
		AcquireResult takeover = poll(() -> store().acquire(key(), new AcquireRequest("b", SHORT, RETENTION, null)),
				(result) -> !(result instanceof InProgress));
		assertThat(takeover).isEqualTo(new Acquired(2, true));
		awaitStoreTime(store(), SHORT);
		assertThat(store().acquire(key(), request("b"))).isEqualTo(new Acquired(2, true));
		assertThat(store().acquire(key(), request("c"))).isInstanceOf(InProgress.class);
	}

	@Test
	default void sameKeyUnderTwoNamesIsTwoRecords() {
		RecordKey other = new RecordKey("other", key().key());
		store().acquire(key(), request("a"));
		assertThat(store().acquire(other, request("b"))).isEqualTo(new Acquired(1, false));
	}

	@Test
	default void differentFingerprintOfCompletedRecordIsKeyReuseAndChangesNothing() {
		store().acquire(key(), withFingerprint("a", FINGERPRINT_A));
		store().complete(key(), "a", 1, StoredResult.of(bytes("x")), RETENTION);
		IdempotencyRecord before = store().read(key()).orElseThrow();
		assertThat(store().acquire(key(), withFingerprint("b", FINGERPRINT_B))).isEqualTo(new KeyReused());
		IdempotencyRecord after = store().read(key()).orElseThrow();
		assertThat(after).usingRecursiveComparison().ignoringFields("expiresAt").isEqualTo(before);
	}

	@Test
	default void differentFingerprintOfRecordInProgressIsKeyReuse() {
		store().acquire(key(), withFingerprint("a", FINGERPRINT_A));
		assertThat(store().acquire(key(), withFingerprint("b", FINGERPRINT_B))).isEqualTo(new KeyReused());
		assertThat(store().complete(key(), "a", 1, StoredResult.of(bytes("x")), RETENTION)).isTrue();
	}

	@Test
	default void differentFingerprintOfExpiredRecordInProgressIsKeyReuse() {
		store().acquire(key(), new AcquireRequest("a", SHORT, RETENTION, FINGERPRINT_A));
		awaitStoreTime(store(), SHORT);
		assertThat(store().acquire(key(), withFingerprint("b", FINGERPRINT_B))).isEqualTo(new KeyReused());
		assertThat(store().acquire(key(), withFingerprint("c", FINGERPRINT_A))).isEqualTo(new Acquired(2, true));
	}

	@Test
	default void sameFingerprintIsReplayed() {
		store().acquire(key(), withFingerprint("a", FINGERPRINT_A));
		store().complete(key(), "a", 1, StoredResult.of(bytes("x")), RETENTION);
		Completed completed = (Completed) store().acquire(key(), withFingerprint("b", FINGERPRINT_A.clone()));
		assertThat(completed.result().body()).isEqualTo(bytes("x"));
	}

	@Test
	default void missingFingerprintOnEitherSideIsNotComparedAndIsReplayed() {
		store().acquire(key(), request("a"));
		store().complete(key(), "a", 1, StoredResult.of(bytes("x")), RETENTION);
		assertThat(store().acquire(key(), withFingerprint("b", FINGERPRINT_A))).isInstanceOf(Completed.class);
		RecordKey other = newKey();
		store().acquire(other, withFingerprint("a", FINGERPRINT_A));
		store().complete(other, "a", 1, StoredResult.of(bytes("x")), RETENTION);
		assertThat(store().acquire(other, request("b"))).isInstanceOf(Completed.class);
	}

	@Test
	default void failedRecordIsAcquiredWhateverTheFingerprint() {
		store().acquire(key(), withFingerprint("a", FINGERPRINT_A));
		store().release(key(), "a", 1, RETENTION);
		assertThat(store().acquire(key(), withFingerprint("b", FINGERPRINT_B))).isEqualTo(new Acquired(2, false));
		store().complete(key(), "b", 2, StoredResult.of(bytes("x")), RETENTION);
		assertThat(store().acquire(key(), withFingerprint("c", FINGERPRINT_A))).isEqualTo(new KeyReused());
	}

}
