package dev.idempotency.engine;

import java.util.function.LongSupplier;

import dev.idempotency.IdempotencyContext;
import dev.idempotency.store.RecordKey;

/**
 * The attempt that owns a record while its method runs, and what it knows of its lease:
 * the end of the last lease the store confirmed, on the local monotonic clock, and
 * whether a renewal found the record lost.
 */
final class Attempt implements IdempotencyContext {

	private final RecordKey record;

	private final String owner;

	private final long fence;

	private final long leaseNanos;

	private final LongSupplier nanoClock;

	// System.nanoTime() scale: when the acquire or renewal that the store last confirmed
	// was sent, plus the lease. The store started the lease no earlier than that.
	private volatile long leaseEndNanos;

	private volatile boolean lost;

	Attempt(RecordKey record, String owner, long fence, long leaseNanos, long acquireSentNanos,
			LongSupplier nanoClock) {
		this.record = record;
		this.owner = owner;
		this.fence = fence;
		this.leaseNanos = leaseNanos;
		this.nanoClock = nanoClock;
		this.leaseEndNanos = acquireSentNanos + leaseNanos;
	}

	RecordKey record() {
		return this.record;
	}

	String owner() {
		return this.owner;
	}

	long leaseNanos() {
		return this.leaseNanos;
	}

	/**
	 * Record a renewal the store confirmed.
	 * @param sentNanos when it was sent
	 */
	void renewed(long sentNanos) {
		long end = sentNanos + this.leaseNanos;
		// Replies may come back out of order; a lease never shrinks
		if (end - this.leaseEndNanos > 0) {
			this.leaseEndNanos = end;
		}
	}

	void lost() {
		this.lost = true;
	}

	/**
	 * Return how long the lease is known to last from now, zero or less once it may have
	 * run out.
	 * @return the nanoseconds left
	 */
	long leaseLeftNanos() {
		return this.lost ? 0 : this.leaseEndNanos - this.nanoClock.getAsLong();
	}

	@Override
	public String name() {
		return this.record.name();
	}

	@Override
	public String key() {
		return this.record.key();
	}

	@Override
	public long fence() {
		return this.fence;
	}

	@Override
	public boolean isLeaseHeld() {
		return leaseLeftNanos() > 0;
	}

	@Override
	public String toString() {
		return "Attempt[" + this.record + ", fence=" + this.fence + "]";
	}

}
