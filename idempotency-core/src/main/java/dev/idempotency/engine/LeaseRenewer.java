package dev.idempotency.engine;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RenewalResult;

/**
 * Renews the leases of running attempts every third of their lock timeout, from one
 * sweeper thread that walks the set of running attempts when the earliest renewal is due.
 * <p>
 * Renewals are sent with {@link IdempotencyStore#renewLease} from a few threads of their
 * own ({@link RenewalSenders}), and never waited for: renewals do not queue behind one
 * another (the Redis store pipelines them on one connection), and a command that hangs,
 * even in a store that sends it on the calling thread, delays only its own attempt (the
 * sweeper starts more threads when every one hangs, up to
 * {@value RenewalSenders#MAX_THREADS}). A renewal that finds the record already finished
 * by its own attempt (a completion whose reply said it failed got through) tells the
 * attempt, which then stops retrying. An attempt has at most one renewal in flight; its
 * {@link Attempt#isLeaseHeld()} turns {@code false} by the clock once the last confirmed
 * lease has run out, whatever the store does.
 * <p>
 * Starting and stopping an attempt only adds it to and removes it from a concurrent set:
 * no lock, no scheduled task and, in the steady state, no wake-up of the sweeper (a
 * scheduled task per call woke the scheduler thread on most calls, a context switch that
 * cost more than the rest of the engine). The sweeper never sleeps longer than the
 * shortest renewal period it has seen while attempts keep starting, so an attempt that
 * starts later is always due after the sweeper's next wake-up; only an attempt due
 * earlier than that (a shorter lock timeout, or the first after a quiet spell, when the
 * sweeper sleeps until woken) wakes it. A sweep also renews the attempts due within a
 * quarter of their period, so that thousands of attempts that started at different times
 * cost a few sweeps per period, not one each. Most calls finish well within a third of
 * their lock timeout, and cost no store round trip.
 */
final class LeaseRenewer implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseRenewer.class);

	private static final long NEVER = Long.MAX_VALUE;

	private static final long WARNING_INTERVAL_SECONDS = 10;

	private static final long WARNING_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(WARNING_INTERVAL_SECONDS);

	// After a sweep that failed unexpectedly: no busy loop if it fails again at once
	private static final long FAILED_SWEEP_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private final IdempotencyStore store;

	private final LongSupplier nanoClock;

	private final ThreadFactory threadFactory;

	private final Set<Renewal> running = ConcurrentHashMap.newKeySet();

	private final RenewalSenders senders = new RenewalSenders();

	private final AtomicLong shortestPeriodNanos = new AtomicLong(NEVER);

	private final AtomicLong lastWarningNanos;

	// When the sweeper wakes up next, on the nanoClock's scale; NEVER while it sleeps
	// until an attempt wakes it.
	private volatile long nextSweepNanos = NEVER;

	// Whether an attempt started since the last sweep; written only when false, so that
	// callers do not contend for its cache line.
	private volatile boolean started;

	private volatile @Nullable Thread sweeper;

	private volatile boolean closed;

	/**
	 * Create a renewer on {@link System#nanoTime()} with a daemon sweeper thread.
	 * @param store the store to renew leases in
	 */
	LeaseRenewer(IdempotencyStore store) {
		this(store, System::nanoTime, (task) -> {
			Thread thread = new Thread(task, "idempotency-lease-renewer");
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * Create a renewer.
	 * @param store the store to renew leases in
	 * @param nanoClock the monotonic clock, in nanoseconds, that plans renewals and
	 * judges leases
	 * @param threadFactory the factory of the sweeper thread, started on the first
	 * attempt
	 */
	LeaseRenewer(IdempotencyStore store, LongSupplier nanoClock, ThreadFactory threadFactory) {
		this.store = store;
		this.nanoClock = nanoClock;
		this.threadFactory = threadFactory;
		this.lastWarningNanos = new AtomicLong(nanoClock.getAsLong() - WARNING_INTERVAL_NANOS);
	}

	/**
	 * Return the clock that judges leases, for attempts to measure theirs on.
	 * @return the monotonic clock, in nanoseconds
	 */
	LongSupplier nanoClock() {
		return this.nanoClock;
	}

	/**
	 * Start renewing the lease of an attempt.
	 * @param attempt the attempt
	 * @param lease its lock timeout
	 * @param retention how long its record is kept past the lease
	 * @return a handle that stops renewal
	 */
	Renewal start(Attempt attempt, Duration lease, Duration retention) {
		long period = Math.max(TimeUnit.MILLISECONDS.toNanos(1), lease.toNanos() / 3);
		if (period < this.shortestPeriodNanos.get()) {
			this.shortestPeriodNanos.accumulateAndGet(period, Math::min);
		}
		Renewal renewal = new Renewal(attempt, lease, retention, period);
		this.running.add(renewal);
		// Read after the add: either close() sees this renewal and the sweeper keeps it
		// renewed until it stops, or this sees the close.
		if (this.closed) {
			this.running.remove(renewal);
			throw new IllegalStateException("The lease renewer is closed: the idempotency engine was shut down");
		}
		if (!this.started) {
			this.started = true;
		}
		Thread sweeper;
		try {
			sweeper = sweeper();
		}
		catch (Throwable ex) {
			// No handle reaches the caller: a renewal left behind would be renewed for
			// ever
			this.running.remove(renewal);
			throw ex;
		}
		// Read after the add: either the sweeper sees this renewal when it checks its
		// plan, or this sees the plan and wakes the sweeper (see sweep()).
		if (isBefore(renewal.dueNanos, this.nextSweepNanos)) {
			LockSupport.unpark(sweeper);
		}
		return renewal;
	}

	/**
	 * Return how many attempts are being renewed.
	 * @return the number of running attempts
	 */
	int running() {
		return this.running.size();
	}

	/**
	 * Refuse new attempts, and stop the sweeper once the attempts still running have
	 * stopped: they keep their leases renewed until then, so that a call still running
	 * when the application shuts down is not taken over while it runs.
	 */
	@Override
	public void close() {
		this.closed = true;
		Thread sweeper = this.sweeper;
		if (sweeper != null) {
			LockSupport.unpark(sweeper);
		}
	}

	private Thread sweeper() {
		Thread sweeper = this.sweeper;
		if (sweeper == null) {
			synchronized (this) {
				sweeper = this.sweeper;
				if (sweeper == null) {
					sweeper = this.threadFactory.newThread(this::sweepUntilClosed);
					// Kept only once started: a thread that failed to start (no native
					// thread left) would never renew anything
					sweeper.start();
					this.sweeper = sweeper;
				}
			}
		}
		return sweeper;
	}

	// An Error outside a renewal (from the clock, the set, an allocation) must not end
	// the sweeps for good: every running lease depends on them. A sweeper that dies all
	// the same gives way to a new one.
	private void sweepUntilClosed() {
		try {
			while (!this.closed || !this.running.isEmpty()) {
				try {
					sweep();
				}
				catch (Throwable ex) {
					logger.error("A sweep of the lease renewer failed unexpectedly; sweeping on", ex);
					LockSupport.parkNanos(this, FAILED_SWEEP_PAUSE_NANOS);
				}
			}
			this.senders.close();
		}
		finally {
			replaceIfNeeded();
		}
	}

	private void replaceIfNeeded() {
		synchronized (this) {
			if (this.sweeper == Thread.currentThread()) {
				this.sweeper = null;
			}
		}
		if (!this.running.isEmpty()) {
			try {
				sweeper();
			}
			catch (Throwable ex) {
				logger.error("Could not replace the lease renewer's sweeper thread; the next attempt tries again", ex);
			}
		}
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
			if (!isBefore(now, renewal.dueNanos - renewal.slackNanos)) {
				renew(renewal, now);
			}
			next = earliest(next, renewal.dueNanos - renewal.slackNanos);
		}
		// While attempts keep starting, wake up at least once per shortest period, so
		// that those yet to start are due after the next wake-up and need not wake it.
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
			if (this.closed) {
				return;
			}
			LockSupport.park(this);
		}
		else {
			LockSupport.parkNanos(this, next - this.nanoClock.getAsLong());
		}
	}

	private static void renew(Renewal renewal, long now) {
		try {
			renewal.send(now);
		}
		catch (Throwable ex) {
			// Never let one renewal stop the sweeper: every other lease depends on it.
			renewal.inFlight = false;
			logger.error("Lease renewal of " + renewal.attempt + " failed unexpectedly", ex);
		}
	}

	// Plan written, set read: an attempt added meanwhile is either seen here or sees the
	// plan in start().
	private boolean isDueBefore(long next) {
		for (Renewal renewal : this.running) {
			if (isBefore(renewal.dueNanos - renewal.slackNanos, next)) {
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

	/**
	 * Renewal of one attempt's lease.
	 */
	final class Renewal {

		private final Attempt attempt;

		private final Duration lease;

		private final Duration retention;

		private final long periodNanos;

		private final long slackNanos;

		private volatile long dueNanos;

		// Whether a renewal was sent and its reply has not come yet: an attempt never has
		// two in flight, so a store that hangs does not pile commands up.
		private volatile boolean inFlight;

		private volatile long sentNanos;

		private volatile boolean stopped;

		// Planned from the grant, not from now: an acquire whose reply came late has used
		// up part of its lease already, and its first renewal may be due at once.
		Renewal(Attempt attempt, Duration lease, Duration retention, long periodNanos) {
			this.attempt = attempt;
			this.lease = lease;
			this.retention = retention;
			this.periodNanos = periodNanos;
			this.slackNanos = periodNanos / 4;
			this.dueNanos = attempt.grantedNanos() + periodNanos;
		}

		private void send(long now) {
			this.dueNanos = now + this.periodNanos;
			// A reply lost for a whole lease (a store that never answers) must not stop
			// renewals for good
			if (this.stopped || (this.inFlight && now - this.sentNanos < this.attempt.leaseNanos())) {
				return;
			}
			this.inFlight = true;
			this.sentNanos = now;
			LeaseRenewer.this.senders.send(() -> sendNow(now));
		}

		// On a sender thread: a store that sends on the calling thread blocks only it
		private void sendNow(long now) {
			CompletionStage<RenewalResult> reply;
			try {
				reply = LeaseRenewer.this.store.renewLease(this.attempt.record(), this.attempt.owner(),
						this.attempt.fence(), this.lease, this.retention);
			}
			catch (Throwable ex) {
				received(now, null, ex);
				return;
			}
			reply.whenComplete((result, ex) -> received(now, result, ex));
		}

		// Runs on whichever thread completes the reply (a client's I/O thread): no
		// blocking here.
		private void received(long sent, @Nullable RenewalResult result, @Nullable Throwable ex) {
			this.inFlight = false;
			if (ex != null || result == null) {
				// Keep trying: the store may come back before anyone takes over, and a
				// renewal that finds the record taken over will report it.
				failed((ex != null) ? ex : new IllegalStateException("The store answered no renewal result"));
				return;
			}
			this.attempt.renewal(result, sent);
			if (result == RenewalResult.RENEWED) {
				return;
			}
			// Nothing left to renew: the store holds this attempt's own outcome, or
			// another attempt took the record over
			if (result == RenewalResult.LOST && !this.stopped) {
				logger.warn(this.attempt + " no longer owns its record: another attempt took it over");
			}
			stop();
		}

		// Runs on a client's I/O thread, perhaps for thousands of attempts at once when
		// the store goes away: one warning per interval, the rest at DEBUG.
		private void failed(Throwable ex) {
			long now = LeaseRenewer.this.nanoClock.getAsLong();
			long last = LeaseRenewer.this.lastWarningNanos.get();
			if (now - last >= WARNING_INTERVAL_NANOS && LeaseRenewer.this.lastWarningNanos.compareAndSet(last, now)) {
				logger.warn("Could not renew the lease of " + this.attempt + " (renewals of other attempts may be "
						+ "failing too; further failures are logged at DEBUG for " + WARNING_INTERVAL_SECONDS + " s): "
						+ ex);
			}
			else if (logger.isDebugEnabled()) {
				logger.debug("Could not renew the lease of " + this.attempt, ex);
			}
		}

		void stop() {
			this.stopped = true;
			LeaseRenewer.this.running.remove(this);
		}

	}

}
