package dev.idempotency.engine;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.store.IdempotencyStore;

/**
 * Renews the leases of running attempts every third of their lock timeout, from one
 * shared scheduler thread: a call costs a scheduled task, never a thread, and a task that
 * is cancelled before its first run (most calls finish well within a third of the lock
 * timeout) costs no store round trip at all.
 */
final class LeaseRenewer implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(LeaseRenewer.class);

	private final IdempotencyStore store;

	private final ScheduledThreadPoolExecutor scheduler;

	LeaseRenewer(IdempotencyStore store) {
		this.store = store;
		this.scheduler = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "idempotency-lease-renewer");
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler.setRemoveOnCancelPolicy(true);
		this.scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
	}

	/**
	 * Start renewing the lease of an attempt.
	 * @param attempt the attempt
	 * @param lease its lock timeout
	 * @return a handle that stops renewal
	 */
	Renewal start(Attempt attempt, Duration lease) {
		long period = Math.max(1, lease.toMillis() / 3);
		Renewal renewal = new Renewal(attempt, lease, System.nanoTime());
		renewal.schedule(this.scheduler.scheduleWithFixedDelay(renewal, period, period, TimeUnit.MILLISECONDS));
		return renewal;
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

	/**
	 * Renewal of one attempt's lease.
	 */
	final class Renewal implements Runnable {

		private final Attempt attempt;

		private final Duration lease;

		private volatile long lastRenewedNanos;

		private volatile @Nullable ScheduledFuture<?> future;

		private volatile boolean stopped;

		Renewal(Attempt attempt, Duration lease, long startNanos) {
			this.attempt = attempt;
			this.lease = lease;
			this.lastRenewedNanos = startNanos;
		}

		@Override
		public void run() {
			if (this.stopped) {
				return;
			}
			long before = System.nanoTime();
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

		private void schedule(ScheduledFuture<?> scheduled) {
			this.future = scheduled;
			if (this.stopped) {
				scheduled.cancel(false);
			}
		}

		void stop() {
			this.stopped = true;
			ScheduledFuture<?> scheduled = this.future;
			if (scheduled != null) {
				scheduled.cancel(false);
			}
		}

	}

}
