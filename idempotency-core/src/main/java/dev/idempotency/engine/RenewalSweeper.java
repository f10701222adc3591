package dev.idempotency.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import dev.idempotency.engine.LeaseRenewer.Renewal;

/**
 * Sends the renewals of {@link LeaseRenewer} when they are due, from one thread
 * ({@link SweeperThread}) that walks the set of running renewals when the earliest is due
 * and sleeps until the next.
 * <p>
 * Adding and removing a renewal only changes a concurrent set: no lock, no scheduled task
 * and, in the steady state, no wake-up of the sweeper (a scheduled task per call woke the
 * scheduler thread on most calls, a context switch that cost more than the rest of the
 * engine). The sweeper never sleeps longer than the shortest renewal period it has seen
 * while renewals keep being added, so a renewal added later is always due after the
 * sweeper's next wake-up; only one due earlier than that (a shorter lock timeout, or the
 * first after a quiet spell, when the sweeper sleeps until woken) wakes it. A sweep also
 * renews what is due within a quarter of its period, so that thousands of attempts that
 * started at different times cost a few sweeps per period, not one each.
 */
final class RenewalSweeper {

	private static final long NEVER = Long.MAX_VALUE;

	private final LongSupplier nanoClock;

	private final RenewalSenders senders;

	private final SweeperThread thread;

	private final Set<Renewal> running = ConcurrentHashMap.newKeySet();

	private final AtomicLong shortestPeriodNanos = new AtomicLong(NEVER);

	// When the sweeper wakes up next, on the nanoClock's scale; NEVER while it sleeps
	// until a renewal wakes it.
	private volatile long nextSweepNanos = NEVER;

	// Whether a renewal was added since the last sweep; written only when false, so that
	// callers do not contend for its cache line.
	private volatile boolean started;

	/**
	 * Create a sweeper; its thread starts with the first renewal.
	 * @param nanoClock the monotonic clock, in nanoseconds, that renewals are planned on
	 * @param threadFactory the factory of the sweeper thread
	 * @param senders the threads that send renewals, closed once the sweeper stops
	 */
	RenewalSweeper(LongSupplier nanoClock, ThreadFactory threadFactory, RenewalSenders senders) {
		this.nanoClock = nanoClock;
		this.senders = senders;
		this.thread = new SweeperThread(threadFactory, this::sweep, () -> !this.running.isEmpty(), senders::close);
	}

	/**
	 * Renew a renewal's lease until it is {@linkplain #remove removed}, starting the
	 * sweeper thread if none runs.
	 * @param renewal the renewal
	 * @throws IllegalStateException once closed
	 */
	void add(Renewal renewal) {
		long period = renewal.periodNanos();
		if (period < this.shortestPeriodNanos.get()) {
			this.shortestPeriodNanos.accumulateAndGet(period, Math::min);
		}
		this.running.add(renewal);
		// Read after the add: either close() sees this renewal and the sweeper keeps it
		// renewed until it stops, or this sees the close.
		if (this.thread.isClosed()) {
			this.running.remove(renewal);
			throw new IllegalStateException("The lease renewer is closed: the idempotency engine was shut down");
		}
		if (!this.started) {
			this.started = true;
		}
		Thread sweeper;
		try {
			sweeper = this.thread.start();
		}
		catch (Throwable ex) {
			// No handle reaches the caller: a renewal left behind would be renewed for
			// ever
			this.running.remove(renewal);
			throw ex;
		}
		// Read after the add: either the sweeper sees this renewal when it checks its
		// plan, or this sees the plan and wakes the sweeper (see sweep()).
		if (isBefore(renewal.dueNanos(), this.nextSweepNanos)) {
			LockSupport.unpark(sweeper);
		}
	}

	/**
	 * Stop renewing a renewal's lease.
	 * @param renewal the renewal
	 */
	void remove(Renewal renewal) {
		this.running.remove(renewal);
	}

	/**
	 * Return how many renewals run.
	 * @return the number of running renewals
	 */
	int size() {
		return this.running.size();
	}

	/**
	 * Refuse new renewals, and stop the sweeper once those still running are removed.
	 */
	void close() {
		this.thread.close();
	}

	// One pass: renews what is due, then sleeps until the next renewal is due
	private void sweep() {
		// Nothing interrupts the sweeper to stop it (close() does not), and a flag
		// left set would make every park below return at once
		Thread.interrupted();
		boolean active = this.started;
		this.started = false;
		this.senders.unstick();
		long now = this.nanoClock.getAsLong();
		long next = NEVER;
		for (Renewal renewal : this.running) {
			if (!isBefore(now, renewal.sweepNanos())) {
				renewal.renew(now);
			}
			next = earliest(next, renewal.sweepNanos());
		}
		// While renewals keep being added, wake up at least once per shortest period, so
		// that those yet to be added are due after the next wake-up and need not wake it.
		if (active || this.started || !this.running.isEmpty()) {
			next = earliest(next, now + this.shortestPeriodNanos.get());
		}
		// Renewals that wait for a sender thread may wait behind renewals that hang
		if (this.senders.isBacklogged()) {
			next = earliest(next, now + RenewalSenders.STALL_NANOS);
		}
		this.nextSweepNanos = next;
		if (isDueBefore(next)) {
			return;
		}
		if (next == NEVER) {
			if (this.thread.isClosed()) {
				return;
			}
			LockSupport.park(this);
		}
		else {
			LockSupport.parkNanos(this, next - this.nanoClock.getAsLong());
		}
	}

	// Plan written, set read: a renewal added meanwhile is either seen here or sees the
	// plan in add().
	private boolean isDueBefore(long next) {
		for (Renewal renewal : this.running) {
			if (isBefore(renewal.sweepNanos(), next)) {
				return true;
			}
		}
		return false;
	}

	// Compares times on the nanoClock's scale, which may wrap; NEVER is after all.
	private static boolean isBefore(long nanos, long other) {
		if (other == NEVER) {
			return nanos != NEVER;
		}
		return nanos != NEVER && nanos - other < 0;
	}

	private static long earliest(long nanos, long other) {
		return isBefore(nanos, other) ? nanos : other;
	}

}
