package dev.idempotency.engine;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RenewalResult;

/**
 * Renews the leases of running attempts every third of their lock timeout, counted from
 * the grant, from one sweeper thread ({@link RenewalSweeper}); starting and stopping an
 * attempt takes no lock and, in the steady state, wakes no thread. Most calls finish well
 * within a third of their lock timeout, and cost no store round trip.
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
 */
final class LeaseRenewer implements AutoCloseable {

	private final IdempotencyStore store;

	private final LongSupplier nanoClock;

	private final RenewalSenders senders = new RenewalSenders();

	private final RenewalWarnings warnings;

	private final RenewalSweeper sweeper;

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
		this.warnings = new RenewalWarnings(nanoClock);
		this.sweeper = new RenewalSweeper(nanoClock, threadFactory, this.senders);
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
	 * @throws IllegalStateException once closed
	 */
	Renewal start(Attempt attempt, Duration lease, Duration retention) {
		long period = Math.max(TimeUnit.MILLISECONDS.toNanos(1), lease.toNanos() / 3);
		Renewal renewal = new Renewal(attempt, lease, retention, period);
		this.sweeper.add(renewal);
		return renewal;
	}

	/**
	 * Return how many attempts are being renewed.
	 * @return the number of running attempts
	 */
	int running() {
		return this.sweeper.size();
	}

	/**
	 * Refuse new attempts, and stop the sweeper once the attempts still running have
	 * stopped: they keep their leases renewed until then, so that a call still running
	 * when the application shuts down is not taken over while it runs.
	 */
	@Override
	public void close() {
		this.sweeper.close();
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

		long periodNanos() {
			return this.periodNanos;
		}

		long dueNanos() {
			return this.dueNanos;
		}

		// When a sweep renews it: a quarter of a period early, so that one sweep renews
		// many attempts
		long sweepNanos() {
			return this.dueNanos - this.slackNanos;
		}

		// Plans the next renewal and sends this one; never throws, for the sweeper that
		// calls it renews every other lease
		void renew(long now) {
			try {
				send(now);
			}
			catch (Throwable ex) {
				this.inFlight = false;
				LeaseRenewer.this.warnings.unexpected(this.attempt, ex);
			}
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
				LeaseRenewer.this.warnings.failed(this.attempt,
						(ex != null) ? ex : new IllegalStateException("The store answered no renewal result"));
				return;
			}
			this.attempt.renewal(result, sent);
			if (result == RenewalResult.RENEWED) {
				return;
			}
			// Nothing left to renew: the store holds this attempt's own outcome, or
			// another attempt took the record over
			if (result == RenewalResult.LOST && !this.stopped) {
				LeaseRenewer.this.warnings.lost(this.attempt);
			}
			stop();
		}

		/**
		 * Stop renewing this attempt's lease.
		 */
		void stop() {
			this.stopped = true;
			LeaseRenewer.this.sweeper.remove(this);
		}

	}

}
