package dev.idempotency.engine;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.store.IdempotencyStore;

/**
 * Renews the leases of running attempts every third of their lock timeout, from one
 * sweeper thread that walks the set of running attempts when the earliest renewal is due.
 * <p>
 * Starting and stopping an attempt only adds it to and removes it from a concurrent set:
 * no lock, no scheduled task and, in the steady state, no wake-up of the sweeper (a
 * scheduled task per call woke the scheduler thread on most calls, a context switch that
 * cost more than the rest of the engine). The sweeper never sleeps longer than the
 * shortest renewal period it has seen while attempts keep starting, so an attempt that
 * starts later is always due after the sweeper's next wake-up; only an attempt due
 * earlier than that (a shorter lock timeout, or the first after a quiet spell, when the
 * sweeper sleeps until woken) wakes it. Most calls finish well within a third of their
 * lock timeout, and cost no store round trip.
 */
final class LeaseRenewer implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseRenewer.class);

	private static final long NEVER = Long.MAX_VALUE;

	private final IdempotencyStore store;

	private final Set<Renewal> running = ConcurrentHashMap.newKeySet();

	private final AtomicLong shortestPeriodNanos = new AtomicLong(NEVER);

	// When the sweeper wakes up next, on the System.nanoTime() scale; NEVER while it
	// sleeps until an attempt wakes it.
	private volatile long nextSweepNanos = NEVER;

	// Whether an attempt started since the last sweep; written only when false, so that
	// callers do not contend for its cache line.
	private volatile boolean started;

	private volatile @Nullable Thread sweeper;

	private volatile boolean closed;

	LeaseRenewer(IdempotencyStore store) {
		this.store = store;
	}

	/**
	 * Start renewing the lease of an attempt.
	 * @param attempt the attempt
	 * @param lease its lock timeout
	 * @return a handle that stops renewal
	 */
	Renewal start(Attempt attempt, Duration lease) {
		long period = Math.max(TimeUnit.MILLISECONDS.toNanos(1), lease.toNanos() / 3);
		if (period < this.shortestPeriodNanos.get()) {
			this.shortestPeriodNanos.accumulateAndGet(period, Math::min);
		}
		Renewal renewal = new Renewal(attempt, lease, period, System.nanoTime());
		this.running.add(renewal);
		if (!this.started) {
			this.started = true;
		}
		Thread sweeper = sweeper();
		// Read after the add: either the sweeper sees this renewal when it checks its
		// plan, or this sees the plan and wakes the sweeper (see sweep()).
		if (isBefore(renewal.dueNanos, this.nextSweepNanos)) {
			LockSupport.unpark(sweeper);
		}
		return renewal;
	}

	@Override
	public void close() {
		this.closed = true;
		Thread sweeper = this.sweeper;
		if (sweeper != null) {
			sweeper.interrupt();
		}
	}

	private Thread sweeper() {
		Thread sweeper = this.sweeper;
		if (sweeper == null) {
			synchronized (this) {
				sweeper = this.sweeper;
				if (sweeper == null) {
					sweeper = new Thread(this::sweep, "idempotency-lease-renewer");
					sweeper.setDaemon(true);
					this.sweeper = sweeper;
					sweeper.start();
				}
			}
		}
		return sweeper;
	}

	private void sweep() {
		while (!this.closed) {
			boolean active = this.started;
			this.started = false;
			long now = System.nanoTime();
			long next = NEVER;
			for (Renewal renewal : this.running) {
				if (!isBefore(now, renewal.dueNanos)) {
					renew(renewal);
				}
				next = earliest(next, renewal.dueNanos);
			}
			// While attempts keep starting, wake up at least once per shortest period, so
			// that those yet to start are due after the next wake-up and need not wake
			// it.
			if (active || this.started || !this.running.isEmpty()) {
				next = earliest(next, now + this.shortestPeriodNanos.get());
			}
			this.nextSweepNanos = next;
			if (isDueBefore(next)) {
				continue;
			}
			if (next == NEVER) {
				LockSupport.park(this);
			}
			else {
				LockSupport.parkNanos(this, next - System.nanoTime());
			}
		}
	}

	private static void renew(Renewal renewal) {
		try {
			renewal.renew();
		}
		catch (Throwable ex) {
			// Never let one renewal stop the sweeper: every other lease depends on it.
			logger.error("Lease renewal of " + renewal.attempt + " failed unexpectedly", ex);
		}
	}

	// Plan written, set read: an attempt added meanwhile is either seen here or sees the
	// plan in start().
	private boolean isDueBefore(long next) {
		for (Renewal renewal : this.running) {
			if (isBefore(renewal.dueNanos, next)) {
				return true;
			}
		}
		return false;
	}

	// Compares times on the System.nanoTime() scale, which may wrap; NEVER is after all.
	private static boolean isBefore(long nanos, long other) {
		if (other == NEVER) {
			return nanos != NEVER;
		}
		return nanos != NEVER && nanos - other < 0;
	}

	private static long earliest(long nanos, long other) {
		return isBefore(nanos, other) ? nanos : other;
	}

	/**
	 * Renewal of one attempt's lease.
	 */
	final class Renewal {

		private final Attempt attempt;

		private final Duration lease;

		private final long periodNanos;

		private volatile long dueNanos;

		private volatile long lastRenewedNanos;

		private volatile boolean stopped;

		Renewal(Attempt attempt, Duration lease, long periodNanos, long startNanos) {
			this.attempt = attempt;
			this.lease = lease;
			this.periodNanos = periodNanos;
			this.lastRenewedNanos = startNanos;
			this.dueNanos = startNanos + periodNanos;
		}

		private void renew() {
			long before = System.nanoTime();
			this.dueNanos = before + this.periodNanos;
			if (this.stopped) {
				return;
			}
			try {
				if (LeaseRenewer.this.store.renew(this.attempt.record(), this.attempt.owner(), this.attempt.fence(),
						this.lease)) {
					this.lastRenewedNanos = before;
					this.attempt.leaseHeld(true);
					return;
				}
				logger.warn(this.attempt + " no longer owns its record: another attempt took it over");
				this.attempt.leaseHeld(false);
				stop();
			}
			catch (RuntimeException ex) {
				// Keep trying: the store may come back before anyone takes over, and a
				// renewal that finds the record taken over will report it.
				if (before - this.lastRenewedNanos >= this.lease.toNanos()) {
					this.attempt.leaseHeld(false);
				}
				logger.warn("Could not renew the lease of " + this.attempt, ex);
			}
		}

		void stop() {
			this.stopped = true;
			LeaseRenewer.this.running.remove(this);
		}

	}

}
