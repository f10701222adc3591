package dev.idempotency.engine;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The one thread of {@link RenewalSweeper}: started with the first renewal, it sweeps
 * until closed and no renewal runs, survives a sweep that fails and, should it die all
 * the same while renewals run, gives way to a new thread.
 */
final class SweeperThread {

	// The category the renewer has always logged under, which users may have configured
	private static final Log logger = LogFactory.getLog(LeaseRenewer.class);

	// After a sweep that failed unexpectedly: no busy loop if it fails again at once
	private static final long FAILED_SWEEP_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private final ThreadFactory threadFactory;

	private final Runnable sweep;

	private final BooleanSupplier renewing;

	private final Runnable stopped;

	private volatile @Nullable Thread thread;

	private volatile boolean closed;

	/**
	 * Create the thread's owner; the thread starts on the first {@link #start()}.
	 * @param threadFactory the factory of the thread
	 * @param sweep one sweep, which parks until the next is due
	 * @param renewing whether renewals still run
	 * @param stopped what to do once the thread stops for good, after its last sweep
	 */
	SweeperThread(ThreadFactory threadFactory, Runnable sweep, BooleanSupplier renewing, Runnable stopped) {
		this.threadFactory = threadFactory;
		this.sweep = sweep;
		this.renewing = renewing;
		this.stopped = stopped;
	}

	/**
	 * Return the sweeper thread, starting one if none runs.
	 * @return the running thread
	 * @throws Error (such as {@link OutOfMemoryError}) if no thread can be started
	 */
	Thread start() {
		Thread thread = this.thread;
		if (thread == null) {
			synchronized (this) {
				thread = this.thread;
				if (thread == null) {
					thread = this.threadFactory.newThread(this::sweepUntilClosed);
					// Kept only once started: a thread that failed to start (no native
					// thread left) would never renew anything
					thread.start();
					this.thread = thread;
				}
			}
		}
		return thread;
	}

	/**
	 * Return whether {@link #close()} was called.
	 * @return whether closed
	 */
	boolean isClosed() {
		return this.closed;
	}

	/**
	 * Let the thread end once no renewal runs, waking it to see that.
	 */
	void close() {
		this.closed = true;
		Thread thread = this.thread;
		if (thread != null) {
			LockSupport.unpark(thread);
		}
	}

	// An Error outside a renewal (from the clock, the set, an allocation) must not end
	// the sweeps for good: every running lease depends on them.
	private void sweepUntilClosed() {
		try {
			while (!this.closed || this.renewing.getAsBoolean()) {
				try {
					this.sweep.run();
				}
				catch (Throwable ex) {
					logger.error("A sweep of the lease renewer failed unexpectedly; sweeping on", ex);
					LockSupport.parkNanos(this, FAILED_SWEEP_PAUSE_NANOS);
				}
			}
			this.stopped.run();
		}
		finally {
			replaceIfNeeded();
		}
	}

	private void replaceIfNeeded() {
		synchronized (this) {
			if (this.thread == Thread.currentThread()) {
				this.thread = null;
			}
		}
		if (this.renewing.getAsBoolean()) {
			try {
				start();
			}
			catch (Throwable ex) {
				logger.error("Could not replace the lease renewer's sweeper thread; the next attempt tries again", ex);
			}
		}
	}

}
