package dev.idempotency.store.memory;

import java.util.Comparator;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentMap;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.RecordKey;

/**
 * Keeps {@link InMemoryIdempotencyStore} within its bound. Called only while new keys are
 * being inserted under the store's lock, so the count cannot grow behind its back.
 */
final class MemoryCapacity {

	private static final Comparator<Map.Entry<RecordKey, MemoryRecord>> LATEST_EXPIRY_FIRST = Comparator
		.comparingLong((Map.Entry<RecordKey, MemoryRecord> entry) -> entry.getValue().expiresAt())
		.reversed();

	private final ConcurrentMap<RecordKey, MemoryRecord> records;

	private final int maxEntries;

	// Evicting a little more than needed pays for each scan of the whole map once per
	// hundredth of the capacity rather than on every insert into a full store.
	private final int slack;

	MemoryCapacity(ConcurrentMap<RecordKey, MemoryRecord> records, int maxEntries) {
		this.records = records;
		this.maxEntries = maxEntries;
		this.slack = maxEntries / 100;
	}

	/**
	 * Make room for one more record.
	 * @param now the store's time
	 * @throws IdempotencyStoreException if every record is an attempt with a live lease
	 */
	void makeRoom(long now) {
		if (this.records.size() < this.maxEntries) {
			return;
		}
		this.records.forEach((key, record) -> {
			if (record.isExpired(now)) {
				this.records.remove(key, record);
			}
		});
		int excess = this.records.size() - this.maxEntries + 1;
		if (excess > 0) {
			evictClosestToExpiry(excess + this.slack, now);
		}
		if (this.records.size() >= this.maxEntries) {
			throw new IdempotencyStoreException("In-memory idempotency store is full: its " + this.maxEntries
					+ " records are all attempts with a live lease; raise its maximum size or use a shared store");
		}
	}

	private void evictClosestToExpiry(int count, long now) {
		PriorityQueue<Map.Entry<RecordKey, MemoryRecord>> victims = new PriorityQueue<>(count + 1, LATEST_EXPIRY_FIRST);
		for (Map.Entry<RecordKey, MemoryRecord> entry : this.records.entrySet()) {
			if (!entry.getValue().isLeaseLive(now)) {
				victims.add(Map.entry(entry.getKey(), entry.getValue()));
				if (victims.size() > count) {
					victims.poll();
				}
			}
		}
		victims.forEach((victim) -> this.records.remove(victim.getKey(), victim.getValue()));
	}

}
