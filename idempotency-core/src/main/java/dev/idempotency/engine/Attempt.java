package dev.idempotency.engine;

import java.util.function.LongSupplier;

import dev.idempotency.IdempotencyContext;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RenewalResult;

/**
 * The attempt that owns a record while its method runs, and what it knows of its lease:
 * when the store granted it, the end of the last lease the store confirmed, on the local
 * monotonic clock, and whether a renewal found the record lost.
 * <p>
 * A lease is counted from the moment its acquire was sent, the earliest the store can
 * have granted it, not from when the reply came: a reply that a lagging replica, a large
 * batch or a slow link held back has used up part of the lease already. The method starts
 * only while at least a {@linkplain #START_MARGIN_DIVISOR third} of the lease is left,
 * the renewal period: the first renewal is then sent at once or before that third has
 * passed, and reaches the store in time unless the process pauses for longer than that.
 */
final class Attempt implements IdempotencyContext {

	private final RecordKey record;

	private final String owner;

	private final long fence;

	/**
	 * The part of its lease an attempt must have left to start its method: a third, one
	 * renewal period.
	 */
	static final int START_MARGIN_DIVISOR = 3;

	private final long leaseNanos;

	private final long grantedNanos;

	private final LongSupplier nanoClock;

	// System.nanoTime() scale: when the acquire or renewal that the store last confirmed
	// was sent, plus the lease. The store started the lease no earlier than that.
	private volatile long leaseEndNanos;

	private volatile boolean lost;

	private volatile boolean finished;

	Attempt(RecordKey record, String owner, long fence, long leaseNanos, long acquireSentNanos,
			LongSupplier nanoClock) {
		this.record = record;
		this.owner = owner;
		this.fence = fence;
		this.leaseNanos = leaseNanos;
		this.nanoClock = nanoClock;
		this.grantedNanos = acquireSentNanos;
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
	 * Return when the store granted the lease, as far as this process can tell: when the
	 * acquire that the store answered was sent.
	 * @return the time, on the monotonic clock of {@link #leaseLeftNanos()}
	 */
	long grantedNanos() {
		return this.grantedNanos;
	}

	/**
	 * Return whether enough of the lease is left to start the method (or the work of a
	 * batch item): at least a third of it, so that a renewal sent now or soon reaches the
	 * store before the lease ends.
	 * @return whether the method may start
	 */
	boolean canStart() {
		return leaseLeftNanos() >= this.leaseNanos / START_MARGIN_DIVISOR;
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
	 * Record what a renewal found: a lease confirmed from when it was sent, the record
	 * finished by this very attempt, or the record lost.
	 * @param result what the store answered
	 * @param sentNanos when the renewal was sent
	 */
	void renewal(RenewalResult result, long sentNanos) {
		switch (result) {
			case RENEWED -> renewed(sentNanos);
			case FINISHED -> finished();
			case LOST -> lost();
		}
	}

	/**
	 * Record that a renewal found the record already completed or released by this very
	 * attempt: a command whose reply said it failed got through.
	 */
	void finished() {
		this.finished = true;
	}

	/**
	 * Return whether a renewal found the record already completed or released by this
	 * attempt.
	 * @return whether the store holds this attempt's outcome
	 */
	boolean isFinished() {
		return this.finished;
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
