package dev.idempotency.store.memory;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * {@link IdempotencyStore} held in this JVM's memory, with the same semantics as the
 * Redis store. It protects against duplicates within one process only: for tests, local
 * development, and single-instance applications.
 * <p>
 * Each transition is atomic per key. The store holds at most {@code maxEntries} records:
 * when full it first drops expired records, then evicts the completed or failed records
 * (or in-progress ones whose lease has run out) that are closest to expiry, which means a
 * duplicate arriving after that runs again. It never evicts an attempt with a live lease:
 * when only those are left, {@link #acquire} of a new key throws
 * {@link IdempotencyStoreException}.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore {

	/**
	 * Default bound on the number of records.
	 */
	public static final int DEFAULT_MAX_ENTRIES = 100_000;

	private final ConcurrentMap<RecordKey, MemoryRecord> records = new ConcurrentHashMap<>();

	// Serializes the creation of new keys only, so that the bound holds exactly.
	private final Object insertLock = new Object();

	private final MemoryCapacity capacity;

	private final int maxEntries;

	private final Clock clock;

	/**
	 * Create a store of {@value #DEFAULT_MAX_ENTRIES} records on the system clock.
	 */
	public InMemoryIdempotencyStore() {
		this(DEFAULT_MAX_ENTRIES);
	}

	/**
	 * Create a store on the system clock.
	 * @param maxEntries the most records to hold
	 */
	public InMemoryIdempotencyStore(int maxEntries) {
		this(maxEntries, Clock.systemUTC());
	}

	/**
	 * Create a store.
	 * @param maxEntries the most records to hold
	 * @param clock the clock that judges leases and expiry
	 */
	public InMemoryIdempotencyStore(int maxEntries, Clock clock) {
		Assert.isTrue(maxEntries > 0, "'maxEntries' must be positive");
		Assert.notNull(clock, "'clock' must not be null");
		this.capacity = new MemoryCapacity(this.records, maxEntries);
		this.maxEntries = maxEntries;
		this.clock = clock;
	}

	@Override
	public AcquireResult acquire(RecordKey key, AcquireRequest request) {
		Assert.notNull(key, "'key' must not be null");
		Assert.notNull(request, "'request' must not be null");
		Acquisition acquisition = new Acquisition(request, this.clock);
		this.records.computeIfPresent(key, acquisition);
		if (acquisition.result != null) {
			return acquisition.result;
		}
		synchronized (this.insertLock) {
			if (!this.records.containsKey(key)) {
				this.capacity.makeRoom(this.clock.millis());
			}
			this.records.compute(key, acquisition);
		}
		Assert.state(acquisition.result != null, "Acquisition must have a result");
		return acquisition.result;
	}

	@Override
	public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
		Assert.notNull(result, "'result' must not be null");
		long retentionMillis = millis(retention, "retention");
		return transition(key, owner, fence, RecordState.COMPLETED,
				(record, now) -> record.complete(now, result, retentionMillis));
	}

	@Override
	public boolean release(RecordKey key, String owner, long fence, Duration retention) {
		long retentionMillis = millis(retention, "retention");
		return transition(key, owner, fence, RecordState.FAILED, (record, now) -> record.release(now, retentionMillis));
	}

	@Override
	public boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
		long leaseMillis = millis(lease, "lease");
		long retentionMillis = millis(retention, "retention");
		return transition(key, owner, fence, null, (record, now) -> record.renew(now, leaseMillis, retentionMillis));
	}

	@Override
	public CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention) {
		long retentionMillis = millis(retention, "retention");
		MemoryRecord record = this.records.get(key);
		if (record == null || !record.owner().equals(owner)) {
			return CompletableFuture.completedFuture(false);
		}
		return CompletableFuture.completedFuture(transition(key, owner, record.fence(), RecordState.FAILED,
				(current, now) -> current.release(now, retentionMillis)));
	}

	@Override
	public Optional<IdempotencyRecord> read(RecordKey key) {
		MemoryRecord record = this.records.get(key);
		if (record == null || record.isExpired(this.clock.millis())) {
			return Optional.empty();
		}
		return Optional.of(record.toRecord(key));
	}

	@Override
	public boolean evict(RecordKey key) {
		MemoryRecord removed = this.records.remove(key);
		return removed != null && !removed.isExpired(this.clock.millis());
	}

	@Override
	public String type() {
		return "memory";
	}

	/**
	 * Describe the store and its bound, for logs.
	 * @return a description
	 */
	@Override
	public String toString() {
		return "in-memory store (at most " + this.maxEntries + " records)";
	}

	/**
	 * Move an owned in-progress record on. A record already in {@code target} state with
	 * the same owner and fence is a re-sent transition and succeeds unchanged; with no
	 * target (a renewal), any state this owner left it in does.
	 */
	private boolean transition(RecordKey key, String owner, long fence, @Nullable RecordState target,
			Transition transition) {
		Assert.notNull(key, "'key' must not be null");
		Assert.notNull(owner, "'owner' must not be null");
		boolean[] done = new boolean[1];
		this.records.computeIfPresent(key, (k, record) -> {
			long now = this.clock.millis();
			if (record.isExpired(now)) {
				return null;
			}
			if (!record.isOwnedBy(owner, fence)) {
				return record;
			}
			if (record.state() == RecordState.IN_PROGRESS) {
				done[0] = true;
				return transition.apply(record, now);
			}
			done[0] = target == null || record.state() == target;
			return record;
		});
		return done[0];
	}

	private static long millis(Duration duration, String name) {
		long millis = duration.toMillis();
		Assert.isTrue(millis > 0, () -> "'" + name + "' must be at least one millisecond");
		return millis;
	}

	@FunctionalInterface
	private interface Transition {

		MemoryRecord apply(MemoryRecord record, long now);

	}

}
