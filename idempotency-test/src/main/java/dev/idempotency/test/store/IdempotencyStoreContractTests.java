package dev.idempotency.test.store;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.AcquireResult.KeyReused;
import dev.idempotency.store.BatchAcquire;
import dev.idempotency.store.BatchComplete;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The contract every {@link IdempotencyStore} fulfils: every transition, ownership and
 * fencing, expiry on the store's clock, fingerprints, and many threads racing for one
 * key. The tests of a store extend this class and create the store: <pre class="code">
 * class MyIdempotencyStoreTests extends IdempotencyStoreContractTests {
 *
 *     &#064;Override
 *     protected IdempotencyStore createStore() {
 *         return new MyIdempotencyStore(...);
 *     }
 *
 * }
 * </pre> Every test uses keys of its own, so the store may be shared by all of them and
 * hold other records. Tests that wait for leases and retentions to run out use durations
 * of a fraction of a second and wait on the store's own clock, never sleeping.
 */
public abstract class IdempotencyStoreContractTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	private static final Duration SHORT = Duration.ofMillis(150);

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private static final byte[] FINGERPRINT_A = bytes("fingerprint-a");

	private static final byte[] FINGERPRINT_B = bytes("fingerprint-b");

	private IdempotencyStore store;

	private RecordKey key;

	/**
	 * Create the store under test; called before each test.
	 * @return the store
	 */
	protected abstract IdempotencyStore createStore();

	@BeforeEach
	void createStoreAndKey() {
		this.store = createStore();
		this.key = newKey();
	}

	/**
	 * Return the store of the running test.
	 * @return the store
	 */
	protected final IdempotencyStore store() {
		return this.store;
	}

	/**
	 * Return a key no other test uses.
	 * @return a random key
	 */
	protected static RecordKey newKey() {
		return new RecordKey("contract", UUID.randomUUID().toString());
	}

	/**
	 * Return a request with a long lease and retention and no fingerprint.
	 * @param owner the owner token
	 * @return the request
	 */
	protected static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, LEASE, RETENTION, null);
	}

	@Test
	void newKeyIsAcquiredWithFenceOne() {
		assertThat(this.store.acquire(this.key, request("a"))).isEqualTo(new Acquired(1, false));
	}

	@Test
	void completedResultIsReplayedWithExactBytes() {
		byte[] body = new byte[512];
		for (int i = 0; i < body.length; i++) {
			body[i] = (byte) i;
		}
		this.store.acquire(this.key, request("a"));
		assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(body.clone()), RETENTION)).isTrue();
		Completed completed = (Completed) this.store.acquire(this.key, request("b"));
		assertThat(completed.fence()).isEqualTo(1);
		assertThat(completed.result().body()).isEqualTo(body);
		assertThat(completed.result().isReplayable()).isTrue();
	}

	@Test
	void emptyBodyIsReplayed() {
		this.store.acquire(this.key, request("a"));
		this.store.complete(this.key, "a", 1, StoredResult.of(new byte[0]), RETENTION);
		Completed completed = (Completed) this.store.acquire(this.key, request("b"));
		assertThat(completed.result().body()).isEmpty();
		assertThat(completed.result().isReplayable()).isTrue();
	}

	@Test
	void unreplayableReasonIsReplayed() {
		String reason = "result of 2 MB exceeds max-result-size 1 MB — ünïcødé";
		this.store.acquire(this.key, request("a"));
		this.store.complete(this.key, "a", 1, StoredResult.unreplayable(reason), RETENTION);
		Completed completed = (Completed) this.store.acquire(this.key, request("b"));
		assertThat(completed.result().isReplayable()).isFalse();
		assertThat(completed.result().unreplayableReason()).isEqualTo(reason);
		assertThat(completed.result().body()).isEmpty();
	}

	@Test
	void failureIsReplayedWithItsTypeAndMessage() {
		String message = "card declined: ünïcødé ✓ 🃏\r\nsecond line\ttab \0 nul";
		this.store.acquire(this.key, request("a"));
		assertThat(this.store.complete(this.key, "a", 1,
				StoredResult.failure("com.example.CardDeclinedException", message), RETENTION))
			.isTrue();
		Completed completed = (Completed) this.store.acquire(this.key, request("b"));
		assertThat(completed.fence()).isEqualTo(1);
		assertThat(completed.result().isFailure()).isTrue();
		assertThat(completed.result().isReplayable()).isFalse();
		assertThat(completed.result().failureType()).isEqualTo("com.example.CardDeclinedException");
		assertThat(completed.result().failureMessage()).isEqualTo(message);
		assertThat(completed.result().unreplayableReason()).isNull();
		assertThat(completed.result().body()).isEmpty();
	}

	@Test
	void failureWithoutMessageIsReplayedWithoutMessageAndAnEmptyOneAsEmpty() {
		RecordKey empty = newKey();
		this.store.acquire(this.key, request("a"));
		this.store.complete(this.key, "a", 1, StoredResult.failure("com.example.Declined", null), RETENTION);
		this.store.acquire(empty, request("a"));
		this.store.complete(empty, "a", 1, StoredResult.failure("com.example.Declined", ""), RETENTION);
		StoredResult withoutMessage = ((Completed) this.store.acquire(this.key, request("b"))).result();
		assertThat(withoutMessage.failureType()).isEqualTo("com.example.Declined");
		assertThat(withoutMessage.failureMessage()).isNull();
		assertThat(((Completed) this.store.acquire(empty, request("b"))).result().failureMessage()).isEmpty();
	}

	@Test
	void resultsAndUnreplayableReasonsAreNeverFailures() {
		RecordKey unreplayable = newKey();
		this.store.acquire(this.key, request("a"));
		this.store.complete(this.key, "a", 1, StoredResult.of(bytes("\0failure")), RETENTION);
		this.store.acquire(unreplayable, request("a"));
		this.store.complete(unreplayable, "a", 1, StoredResult.unreplayable("failure"), RETENTION);
		assertThat(((Completed) this.store.acquire(this.key, request("b"))).result().isFailure()).isFalse();
		assertThat(((Completed) this.store.acquire(unreplayable, request("b"))).result().isFailure()).isFalse();
	}

	@Test
	void staleOwnersFailureCannotOverwriteItsSuccessorsResult() {
		this.store.acquire(this.key, new AcquireRequest("zombie", SHORT, RETENTION, null));
		poll(() -> this.store.acquire(this.key, request("successor")), Acquired.class::isInstance);
		StoredResult zombies = StoredResult.failure("com.example.Declined", "zombie's");
		assertThat(this.store.complete(this.key, "zombie", 1, zombies, RETENTION)).isFalse();
		assertThat(this.store.complete(this.key, "successor", 2, StoredResult.of(bytes("successor")), RETENTION))
			.isTrue();
		assertThat(this.store.complete(this.key, "zombie", 1, zombies, RETENTION)).isFalse();
		Completed completed = (Completed) this.store.acquire(this.key, request("c"));
		assertThat(completed.fence()).isEqualTo(2);
		assertThat(completed.result().isFailure()).isFalse();
		assertThat(completed.result().body()).isEqualTo(bytes("successor"));
	}

	@Test
	void completeWithAFailureIsIdempotentForTheSameOwner() {
		this.store.acquire(this.key, request("a"));
		StoredResult failure = StoredResult.failure("com.example.Declined", "first");
		assertThat(this.store.complete(this.key, "a", 1, failure, RETENTION)).isTrue();
		assertThat(this.store.complete(this.key, "a", 1, failure, RETENTION)).isTrue();
		assertThat(((Completed) this.store.acquire(this.key, request("b"))).result().failureMessage())
			.isEqualTo("first");
	}

	@Test
	void readDescribesCompletedFailureAsCompletedWithoutAReplayableResult() {
		this.store.acquire(this.key, request("a"));
		this.store.complete(this.key, "a", 1, StoredResult.failure("com.example.Declined", "no"), RETENTION);
		IdempotencyRecord record = this.store.read(this.key).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.completedAt()).isNotNull();
		assertThat(record.resultStored()).isFalse();
	}

	@Test
	void concurrentAcquiresHaveExactlyOneWinner() throws Exception {
		int threads = 32;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch ready = new CountDownLatch(threads);
			CountDownLatch start = new CountDownLatch(1);
			List<Future<AcquireResult>> futures = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				String owner = "owner-" + i;
				futures.add(executor.submit(() -> {
					ready.countDown();
					start.await();
					return this.store.acquire(this.key, request(owner));
				}));
			}
			assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
			start.countDown();
			List<AcquireResult> results = new ArrayList<>();
			for (Future<AcquireResult> future : futures) {
				results.add(future.get(10, TimeUnit.SECONDS));
			}
			assertThat(results).filteredOn(Acquired.class::isInstance).containsExactly(new Acquired(1, false));
			assertThat(results).filteredOn(InProgress.class::isInstance)
				.hasSize(threads - 1)
				.allSatisfy((result) -> assertThat(((InProgress) result).fence()).isEqualTo(1));
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void liveLeaseIsReportedAsInProgressWithRemainingLease() {
		this.store.acquire(this.key, request("a"));
		InProgress inProgress = (InProgress) this.store.acquire(this.key, request("b"));
		assertThat(inProgress.fence()).isEqualTo(1);
		assertThat(inProgress.leaseRemaining()).isPositive().isLessThanOrEqualTo(LEASE);
	}

	@Test
	void expiredLeaseIsTakenOverWithNextFence() {
		this.store.acquire(this.key, new AcquireRequest("a", SHORT, RETENTION, null));
		AcquireResult takeover = poll(() -> this.store.acquire(this.key, request("b")),
				(result) -> !(result instanceof InProgress));
		assertThat(takeover).isEqualTo(new Acquired(2, true));
		assertThat(this.store.acquire(this.key, request("c"))).isInstanceOf(InProgress.class);
	}

	@Test
	void staleOwnerLosesEveryTransitionAfterTakeover() {
		this.store.acquire(this.key, new AcquireRequest("zombie", SHORT, RETENTION, null));
		poll(() -> this.store.acquire(this.key, request("successor")), Acquired.class::isInstance);
		assertThat(this.store.renew(this.key, "zombie", 1, LEASE, RETENTION)).isFalse();
		assertThat(this.store.complete(this.key, "zombie", 1, StoredResult.of(bytes("zombie")), RETENTION)).isFalse();
		assertThat(this.store.release(this.key, "zombie", 1, RETENTION)).isFalse();
		assertThat(this.store.complete(this.key, "successor", 2, StoredResult.of(bytes("successor")), RETENTION))
			.isTrue();
		assertThat(this.store.renew(this.key, "zombie", 1, LEASE, RETENTION)).isFalse();
		assertThat(this.store.complete(this.key, "zombie", 1, StoredResult.of(bytes("zombie")), RETENTION)).isFalse();
		assertThat(this.store.release(this.key, "zombie", 1, RETENTION)).isFalse();
		Completed completed = (Completed) this.store.acquire(this.key, request("c"));
		assertThat(completed.fence()).isEqualTo(2);
		assertThat(completed.result().body()).isEqualTo(bytes("successor"));
	}

	@Test
	void ownerCompletesAfterItsLeaseRanOutWhileNobodyTookOver() {
		this.store.acquire(this.key, new AcquireRequest("a", SHORT, RETENTION, null));
		awaitStoreTime(SHORT);
		assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(bytes("late")), RETENTION)).isTrue();
		assertThat(this.store.acquire(this.key, request("b"))).isInstanceOf(Completed.class);
	}

	@Test
	void transitionsOfAnotherOwnerOrFenceFail() {
		this.store.acquire(this.key, request("a"));
		assertThat(this.store.complete(this.key, "b", 1, StoredResult.of(bytes("x")), RETENTION)).isFalse();
		assertThat(this.store.complete(this.key, "a", 2, StoredResult.of(bytes("x")), RETENTION)).isFalse();
		assertThat(this.store.release(this.key, "b", 1, RETENTION)).isFalse();
		assertThat(this.store.release(this.key, "a", 2, RETENTION)).isFalse();
		assertThat(this.store.renew(this.key, "b", 1, LEASE, RETENTION)).isFalse();
		assertThat(this.store.renew(this.key, "a", 2, LEASE, RETENTION)).isFalse();
		assertThat(this.store.read(this.key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
	}

	@Test
	void transitionsOfMissingRecordFail() {
		assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(bytes("x")), RETENTION)).isFalse();
		assertThat(this.store.release(this.key, "a", 1, RETENTION)).isFalse();
		assertThat(this.store.renew(this.key, "a", 1, LEASE, RETENTION)).isFalse();
		assertThat(this.store.read(this.key)).isEmpty();
	}

	@Test
	void renewExtendsLeaseBeyondTheOriginalOne() {
		this.store.acquire(this.key, new AcquireRequest("a", SHORT, SHORT, null));
		assertThat(this.store.renew(this.key, "a", 1, Duration.ofSeconds(5), RETENTION)).isTrue();
		awaitStoreTime(SHORT.multipliedBy(2));
		InProgress inProgress = (InProgress) this.store.acquire(this.key, request("b"));
		assertThat(inProgress.fence()).isEqualTo(1);
		assertThat(inProgress.leaseRemaining()).isGreaterThan(Duration.ofSeconds(3));
		IdempotencyRecord record = this.store.read(this.key).orElseThrow();
		assertThat(record.expiresAt()).isAfter(record.startedAt().plusSeconds(3));
	}

	@Test
	void renewOfItsOwnCompletedOrFailedRecordSucceedsAndChangesNothing() {
		this.store.acquire(this.key, request("a"));
		this.store.complete(this.key, "a", 1, StoredResult.of(bytes("x")), RETENTION);
		assertThat(this.store.renew(this.key, "a", 1, LEASE, RETENTION)).isTrue();
		assertThat(this.store.read(this.key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
		RecordKey other = newKey();
		this.store.acquire(other, request("a"));
		this.store.release(other, "a", 1, RETENTION);
		assertThat(this.store.renew(other, "a", 1, LEASE, RETENTION)).isTrue();
		assertThat(this.store.read(other).orElseThrow().state()).isEqualTo(RecordState.FAILED);
		assertThat(this.store.renew(other, "b", 1, LEASE, RETENTION)).isFalse();
	}

	@Test
	void renewAsyncAnswersLikeRenew() throws Exception {
		this.store.acquire(this.key, new AcquireRequest("a", SHORT, SHORT, null));
		assertThat(this.store.renewAsync(this.key, "a", 1, LEASE, RETENTION)
			.toCompletableFuture()
			.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.store.renewAsync(this.key, "b", 1, LEASE, RETENTION)
			.toCompletableFuture()
			.get(10, TimeUnit.SECONDS)).isFalse();
		assertThat(((InProgress) this.store.acquire(this.key, request("c"))).leaseRemaining())
			.isGreaterThan(Duration.ofSeconds(20));
	}

	@Test
	void inProgressRecordOutlivesItsLeaseByRetention() {
		Duration lease = Duration.ofSeconds(1);
		Duration retention = Duration.ofSeconds(1);
		this.store.acquire(this.key, new AcquireRequest("a", lease, retention, null));
		IdempotencyRecord record = this.store.read(this.key).orElseThrow();
		assertThat(record.expiresAt()).isAfterOrEqualTo(record.leaseExpiresAt().plus(retention).minusMillis(5));
		// Past both the lease and the retention from acquire: the record is still there,
		// so the next attempt is a takeover with a higher fence, never fence 1 again
		awaitStoreTime(retention.plusMillis(200));
		assertThat(this.store.acquire(this.key, request("b"))).isEqualTo(new Acquired(2, true));
	}

	@Test
	void renewKeepsTheRecordForRetentionPastTheRenewedLease() {
		this.store.acquire(this.key, new AcquireRequest("a", SHORT, SHORT, null));
		assertThat(this.store.renew(this.key, "a", 1, Duration.ofSeconds(5), Duration.ofSeconds(60))).isTrue();
		IdempotencyRecord record = this.store.read(this.key).orElseThrow();
		assertThat(record.expiresAt()).isAfterOrEqualTo(record.leaseExpiresAt().plusSeconds(59));
	}

	@Test
	void reSentAcquireFindsItsOwnAttempt() {
		assertThat(this.store.acquire(this.key, request("a"))).isEqualTo(new Acquired(1, false));
		assertThat(this.store.acquire(this.key, request("a"))).isEqualTo(new Acquired(1, false));
		assertThat(this.store.acquire(this.key, request("b"))).isInstanceOf(InProgress.class);
		assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(bytes("x")), RETENTION)).isTrue();
	}

	@Test
	void reSentAcquireAfterATakeoverIsStillATakeoverWithItsFenceAndStartsItsLeaseAgain() {
		this.store.acquire(this.key, new AcquireRequest("a", SHORT, RETENTION, null));
		AcquireResult takeover = poll(
				() -> this.store.acquire(this.key, new AcquireRequest("b", SHORT, RETENTION, null)),
				(result) -> !(result instanceof InProgress));
		assertThat(takeover).isEqualTo(new Acquired(2, true));
		awaitStoreTime(SHORT);
		assertThat(this.store.acquire(this.key, request("b"))).isEqualTo(new Acquired(2, true));
		assertThat(this.store.acquire(this.key, request("c"))).isInstanceOf(InProgress.class);
	}

	@Test
	void abandonReleasesWhatAnAcquireOfThisOwnerTook() throws Exception {
		this.store.acquire(this.key, request("a"));
		assertThat(this.store.abandon(this.key, "b", RETENTION).toCompletableFuture().get(10, TimeUnit.SECONDS))
			.isFalse();
		assertThat(this.store.read(this.key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(this.store.abandon(this.key, "a", RETENTION).toCompletableFuture().get(10, TimeUnit.SECONDS))
			.isTrue();
		IdempotencyRecord failed = this.store.read(this.key).orElseThrow();
		assertThat(failed.state()).isEqualTo(RecordState.FAILED);
		assertThat(failed.fence()).isEqualTo(1);
		assertThat(this.store.acquire(this.key, request("b"))).isEqualTo(new Acquired(2, false));
		assertThat(this.store.abandon(newKey(), "a", RETENTION).toCompletableFuture().get(10, TimeUnit.SECONDS))
			.isFalse();
	}

	@Test
	void abandonLeavesACompletedRecordAlone() throws Exception {
		this.store.acquire(this.key, request("a"));
		this.store.complete(this.key, "a", 1, StoredResult.of(bytes("x")), RETENTION);
		assertThat(this.store.abandon(this.key, "a", RETENTION).toCompletableFuture().get(10, TimeUnit.SECONDS))
			.isFalse();
		assertThat(this.store.acquire(this.key, request("b"))).isInstanceOf(Completed.class);
	}

	@Test
	void releaseMarksFailedAndNextAcquireGetsNextFence() {
		this.store.acquire(this.key, request("a"));
		assertThat(this.store.release(this.key, "a", 1, RETENTION)).isTrue();
		IdempotencyRecord failed = this.store.read(this.key).orElseThrow();
		assertThat(failed.state()).isEqualTo(RecordState.FAILED);
		assertThat(failed.fence()).isEqualTo(1);
		assertThat(this.store.acquire(this.key, request("b"))).isEqualTo(new Acquired(2, false));
		assertThat(this.store.release(this.key, "b", 2, RETENTION)).isTrue();
		assertThat(this.store.acquire(this.key, request("c"))).isEqualTo(new Acquired(3, false));
	}

	@Test
	void completeIsIdempotentForTheSameOwner() {
		this.store.acquire(this.key, request("a"));
		assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(bytes("first")), RETENTION)).isTrue();
		assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(bytes("second")), RETENTION)).isTrue();
		Completed completed = (Completed) this.store.acquire(this.key, request("b"));
		assertThat(completed.result().body()).isEqualTo(bytes("first"));
		assertThat(this.store.release(this.key, "a", 1, RETENTION)).isFalse();
	}

	@Test
	void releaseIsIdempotentForTheSameOwner() {
		this.store.acquire(this.key, request("a"));
		assertThat(this.store.release(this.key, "a", 1, RETENTION)).isTrue();
		assertThat(this.store.release(this.key, "a", 1, RETENTION)).isTrue();
		assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(bytes("x")), RETENTION)).isFalse();
		assertThat(this.store.read(this.key).orElseThrow().state()).isEqualTo(RecordState.FAILED);
	}

	@Test
	void differentFingerprintOfCompletedRecordIsKeyReuseAndChangesNothing() {
		this.store.acquire(this.key, withFingerprint("a", FINGERPRINT_A));
		this.store.complete(this.key, "a", 1, StoredResult.of(bytes("x")), RETENTION);
		IdempotencyRecord before = this.store.read(this.key).orElseThrow();
		assertThat(this.store.acquire(this.key, withFingerprint("b", FINGERPRINT_B))).isEqualTo(new KeyReused());
		IdempotencyRecord after = this.store.read(this.key).orElseThrow();
		assertThat(after).usingRecursiveComparison().ignoringFields("expiresAt").isEqualTo(before);
	}

	@Test
	void differentFingerprintOfRecordInProgressIsKeyReuse() {
		this.store.acquire(this.key, withFingerprint("a", FINGERPRINT_A));
		assertThat(this.store.acquire(this.key, withFingerprint("b", FINGERPRINT_B))).isEqualTo(new KeyReused());
		assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(bytes("x")), RETENTION)).isTrue();
	}

	@Test
	void differentFingerprintOfExpiredRecordInProgressIsKeyReuse() {
		this.store.acquire(this.key, new AcquireRequest("a", SHORT, RETENTION, FINGERPRINT_A));
		awaitStoreTime(SHORT);
		assertThat(this.store.acquire(this.key, withFingerprint("b", FINGERPRINT_B))).isEqualTo(new KeyReused());
		assertThat(this.store.acquire(this.key, withFingerprint("c", FINGERPRINT_A))).isEqualTo(new Acquired(2, true));
	}

	@Test
	void sameFingerprintIsReplayed() {
		this.store.acquire(this.key, withFingerprint("a", FINGERPRINT_A));
		this.store.complete(this.key, "a", 1, StoredResult.of(bytes("x")), RETENTION);
		Completed completed = (Completed) this.store.acquire(this.key, withFingerprint("b", FINGERPRINT_A.clone()));
		assertThat(completed.result().body()).isEqualTo(bytes("x"));
	}

	@Test
	void missingFingerprintOnEitherSideIsNotComparedAndIsReplayed() {
		this.store.acquire(this.key, request("a"));
		this.store.complete(this.key, "a", 1, StoredResult.of(bytes("x")), RETENTION);
		assertThat(this.store.acquire(this.key, withFingerprint("b", FINGERPRINT_A))).isInstanceOf(Completed.class);
		RecordKey other = newKey();
		this.store.acquire(other, withFingerprint("a", FINGERPRINT_A));
		this.store.complete(other, "a", 1, StoredResult.of(bytes("x")), RETENTION);
		assertThat(this.store.acquire(other, request("b"))).isInstanceOf(Completed.class);
	}

	@Test
	void failedRecordIsAcquiredWhateverTheFingerprint() {
		this.store.acquire(this.key, withFingerprint("a", FINGERPRINT_A));
		this.store.release(this.key, "a", 1, RETENTION);
		assertThat(this.store.acquire(this.key, withFingerprint("b", FINGERPRINT_B))).isEqualTo(new Acquired(2, false));
		this.store.complete(this.key, "b", 2, StoredResult.of(bytes("x")), RETENTION);
		assertThat(this.store.acquire(this.key, withFingerprint("c", FINGERPRINT_A))).isEqualTo(new KeyReused());
	}

	@Test
	void completedRecordExpiresAfterRetention() {
		this.store.acquire(this.key, new AcquireRequest("a", LEASE, SHORT, null));
		this.store.complete(this.key, "a", 1, StoredResult.of(bytes("x")), SHORT);
		AcquireResult result = poll(() -> this.store.acquire(this.key, request("b")), Acquired.class::isInstance);
		assertThat(result).isEqualTo(new Acquired(1, false));
	}

	@Test
	void failedRecordExpiresAfterRetention() {
		this.store.acquire(this.key, new AcquireRequest("a", LEASE, SHORT, null));
		this.store.release(this.key, "a", 1, SHORT);
		poll(() -> this.store.read(this.key), (record) -> record.isEmpty());
		assertThat(this.store.acquire(this.key, request("b"))).isEqualTo(new Acquired(1, false));
	}

	@Test
	void recordInProgressLivesAtLeastAsLongAsItsLease() {
		this.store.acquire(this.key, new AcquireRequest("a", Duration.ofSeconds(5), SHORT, null));
		awaitStoreTime(SHORT.multipliedBy(2));
		assertThat(this.store.acquire(this.key, request("b"))).isInstanceOf(InProgress.class);
	}

	@Test
	void readDescribesRecordInProgress() {
		Instant before = Instant.now();
		this.store.acquire(this.key, request("a"));
		IdempotencyRecord record = this.store.read(this.key).orElseThrow();
		assertThat(record.key()).isEqualTo(this.key);
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
	void readDescribesCompletedRecord() {
		this.store.acquire(this.key, request("a"));
		this.store.complete(this.key, "a", 1, StoredResult.of(bytes("x")), Duration.ofHours(1));
		IdempotencyRecord record = this.store.read(this.key).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.fence()).isEqualTo(1);
		assertThat(record.completedAt()).isNotNull().isAfterOrEqualTo(record.startedAt());
		assertThat(record.resultStored()).isTrue();
		assertThat(Duration.between(record.completedAt(), record.expiresAt())).isBetween(Duration.ofMinutes(59),
				Duration.ofMinutes(61));
	}

	@Test
	void readDescribesUnreplayableCompletedRecord() {
		this.store.acquire(this.key, request("a"));
		this.store.complete(this.key, "a", 1, StoredResult.unreplayable("too large"), RETENTION);
		IdempotencyRecord record = this.store.read(this.key).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.resultStored()).isFalse();
	}

	@Test
	void readDescribesFailedRecord() {
		this.store.acquire(this.key, request("a"));
		this.store.release(this.key, "a", 1, Duration.ofHours(1));
		IdempotencyRecord record = this.store.read(this.key).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.FAILED);
		assertThat(record.fence()).isEqualTo(1);
		assertThat(record.completedAt()).isNull();
		assertThat(record.resultStored()).isFalse();
		assertThat(Duration.between(record.startedAt(), record.expiresAt())).isBetween(Duration.ofMinutes(59),
				Duration.ofMinutes(61));
	}

	@Test
	void evictDeletesRecordWhateverItsState() {
		this.store.acquire(this.key, request("a"));
		assertThat(this.store.evict(this.key)).isTrue();
		assertThat(this.store.read(this.key)).isEmpty();
		assertThat(this.store.evict(this.key)).isFalse();
		assertThat(this.store.acquire(this.key, request("b"))).isEqualTo(new Acquired(1, false));
		this.store.complete(this.key, "b", 1, StoredResult.of(bytes("x")), RETENTION);
		assertThat(this.store.evict(this.key)).isTrue();
		assertThat(this.store.acquire(this.key, request("c"))).isEqualTo(new Acquired(1, false));
	}

	@Test
	void sameKeyUnderTwoNamesIsTwoRecords() {
		RecordKey other = new RecordKey("other", this.key.key());
		this.store.acquire(this.key, request("a"));
		assertThat(this.store.acquire(other, request("b"))).isEqualTo(new Acquired(1, false));
	}

	@Test
	void acquireAllAnswersEveryItemInOrderAsAcquireWould() {
		RecordKey fresh = newKey();
		RecordKey completed = newKey();
		RecordKey inProgress = newKey();
		RecordKey reused = newKey();
		RecordKey failed = newKey();
		this.store.acquire(completed, request("earlier"));
		this.store.complete(completed, "earlier", 1, StoredResult.of(bytes("stored")), RETENTION);
		this.store.acquire(inProgress, request("other"));
		this.store.acquire(reused, withFingerprint("other", FINGERPRINT_A));
		this.store.acquire(failed, request("earlier"));
		this.store.release(failed, "earlier", 1, RETENTION);
		List<AcquireResult> results = this.store.acquireAll(List.of(new BatchAcquire(fresh, request("a")),
				new BatchAcquire(completed, request("b")), new BatchAcquire(inProgress, request("c")),
				new BatchAcquire(reused, withFingerprint("d", FINGERPRINT_B)), new BatchAcquire(failed, request("e"))));
		assertThat(results).hasSize(5);
		assertThat(results.get(0)).isEqualTo(new Acquired(1, false));
		assertThat(((Completed) results.get(1)).result().body()).isEqualTo(bytes("stored"));
		assertThat(results.get(2)).isInstanceOf(InProgress.class);
		assertThat(results.get(3)).isEqualTo(new KeyReused());
		assertThat(results.get(4)).isEqualTo(new Acquired(2, false));
		assertThat(this.store.acquire(fresh, request("f"))).isInstanceOf(InProgress.class);
		assertThat(this.store.acquire(failed, request("f"))).isInstanceOf(InProgress.class);
	}

	@Test
	void acquireAllOfOneKeyTwiceIsTheSameAsOneAfterTheOther() {
		RecordKey sameOwner = newKey();
		List<AcquireResult> results = this.store
			.acquireAll(List.of(new BatchAcquire(this.key, request("a")), new BatchAcquire(this.key, request("b")),
					new BatchAcquire(sameOwner, request("c")), new BatchAcquire(sameOwner, request("c"))));
		assertThat(results.get(0)).isEqualTo(new Acquired(1, false));
		assertThat(results.get(1)).isInstanceOf(InProgress.class);
		assertThat(results.subList(2, 4)).containsOnly(new Acquired(1, false));
	}

	@Test
	void completeAllCompletesEveryItemItOwnsAndReportsTheOthers() {
		RecordKey second = newKey();
		RecordKey lost = newKey();
		this.store.acquireAll(List.of(new BatchAcquire(this.key, request("a")), new BatchAcquire(second, request("a")),
				new BatchAcquire(lost, request("a"))));
		List<Boolean> completed = this.store
			.completeAll(List.of(new BatchComplete(this.key, "a", 1, StoredResult.of(bytes("one")), RETENTION),
					new BatchComplete(second, "a", 1, StoredResult.unreplayable("too large"), RETENTION),
					new BatchComplete(lost, "a", 2, StoredResult.of(bytes("stale")), RETENTION)));
		assertThat(completed).containsExactly(true, true, false);
		assertThat(((Completed) this.store.acquire(this.key, request("b"))).result().body()).isEqualTo(bytes("one"));
		assertThat(((Completed) this.store.acquire(second, request("b"))).result().unreplayableReason())
			.isEqualTo("too large");
		assertThat(this.store.read(lost).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
	}

	@Test
	void completeAllIsIdempotentForTheSameOwner() {
		RecordKey second = newKey();
		this.store
			.acquireAll(List.of(new BatchAcquire(this.key, request("a")), new BatchAcquire(second, request("a"))));
		List<BatchComplete> batch = List.of(
				new BatchComplete(this.key, "a", 1, StoredResult.of(bytes("one")), RETENTION),
				new BatchComplete(second, "a", 1, StoredResult.of(bytes("two")), RETENTION));
		assertThat(this.store.completeAll(batch)).containsExactly(true, true);
		assertThat(this.store.completeAll(batch)).containsExactly(true, true);
		assertThat(((Completed) this.store.acquire(second, request("b"))).result().body()).isEqualTo(bytes("two"));
	}

	@Test
	void emptyBatchesAnswerNothing() {
		assertThat(this.store.acquireAll(List.of())).isEmpty();
		assertThat(this.store.completeAll(List.of())).isEmpty();
	}

	@Test
	void typeIsNamed() {
		assertThat(this.store.type()).isNotBlank();
	}

	private static AcquireRequest withFingerprint(String owner, byte[] fingerprint) {
		return new AcquireRequest(owner, LEASE, RETENTION, fingerprint);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static <T> T poll(Supplier<T> action, Predicate<T> done) {
		return Awaitility.await().atMost(DEADLINE).pollInterval(Duration.ofMillis(10)).until(action::get, done::test);
	}

	/**
	 * Wait until at least {@code duration} has passed on the store's clock, which may not
	 * be this JVM's: a probe record acquired now with that lease is polled until it can
	 * be taken over.
	 */
	private void awaitStoreTime(Duration duration) {
		RecordKey probe = newKey();
		this.store.acquire(probe, new AcquireRequest("probe", duration, RETENTION, null));
		poll(() -> this.store.acquire(probe, request("prober")), Acquired.class::isInstance);
	}

}
