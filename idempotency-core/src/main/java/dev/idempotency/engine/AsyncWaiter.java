package dev.idempotency.engine;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.RecordKey;

/**
 * {@code WAIT} for asynchronous calls: polls acquire like {@link InProgressWaiter}, with
 * the same pauses, but from a small scheduler of daemon threads instead of the caller's
 * thread, which must never block for a method that returns a stage or a {@code Mono}.
 * Each poll is one store round trip on a scheduler thread. A wait that takes the record
 * over runs its method on another thread, of a pool that grows as needed: a method may
 * block before it returns its stage, and on the scheduler's few threads it would hold up
 * every other wait's polls. The scheduler starts with the first wait and stops when the
 * engine closes; a wait still pending then ends as one that waited in vain, and so does
 * every wait at its next poll once the engine refuses calls.
 */
final class AsyncWaiter implements AutoCloseable {

	private static final int THREADS = 2;

	// Bounds the threads that run methods after a wait: past it, a method runs on the
	// scheduler's thread, late for other waits rather than a thread each
	private static final int MAX_RUNNERS = 64;

	private final Acquirer acquirer;

	private final LongSupplier nanoClock;

	private final AtomicInteger threads = new AtomicInteger();

	private volatile @Nullable ScheduledThreadPoolExecutor scheduler;

	private volatile @Nullable ThreadPoolExecutor runners;

	private volatile boolean closed;

	AsyncWaiter(Acquirer acquirer, LongSupplier nanoClock) {
		this.acquirer = acquirer;
		this.nanoClock = nanoClock;
	}

	/**
	 * Wait, without blocking, until another attempt is no longer in progress, or the
	 * timeout runs out, or the waiting call is cancelled.
	 * @param record the record
	 * @param request the waiting attempt's request
	 * @param first the claim that found the other attempt in progress
	 * @param timeout the bound of the wait
	 * @param waiting told of the outcome, on a scheduler thread
	 */
	void await(RecordKey record, AcquireRequest request, Claim first, Duration timeout, Waiting waiting) {
		new Poll(record, request, first, first.sentNanos() + timeout.toNanos(), waiting).next();
	}

	private ScheduledThreadPoolExecutor scheduler() {
		ScheduledThreadPoolExecutor scheduler = this.scheduler;
		if (scheduler == null) {
			synchronized (this) {
				scheduler = this.scheduler;
				if (scheduler == null) {
					if (this.closed) {
						throw new RejectedExecutionException("The idempotency engine was shut down");
					}
					scheduler = new ScheduledThreadPoolExecutor(THREADS, (task) -> {
						Thread thread = new Thread(task, "idempotency-wait-" + this.threads.incrementAndGet());
						thread.setDaemon(true);
						return thread;
					});
					this.scheduler = scheduler;
				}
			}
		}
		return scheduler;
	}

	// Runs a wait that took the record over on a runner thread, or on this one when
	// none is left or the engine is shut down
	private void takeOver(Runnable work) {
		try {
			runners().execute(work);
		}
		catch (RejectedExecutionException ex) {
			work.run();
		}
	}

	private ThreadPoolExecutor runners() {
		ThreadPoolExecutor runners = this.runners;
		if (runners == null) {
			synchronized (this) {
				runners = this.runners;
				if (runners == null) {
					if (this.closed) {
						throw new RejectedExecutionException("The idempotency engine was shut down");
					}
					runners = new ThreadPoolExecutor(0, MAX_RUNNERS, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
							(task) -> {
								Thread thread = new Thread(task, "idempotency-run-" + this.threads.incrementAndGet());
								thread.setDaemon(true);
								return thread;
							});
					this.runners = runners;
				}
			}
		}
		return runners;
	}

	/**
	 * Stop polling: the polls already planned run once more, then the waits end as ones
	 * that waited in vain.
	 */
	@Override
	public void close() {
		synchronized (this) {
			this.closed = true;
			ScheduledThreadPoolExecutor scheduler = this.scheduler;
			if (scheduler != null) {
				scheduler.shutdown();
			}
			ThreadPoolExecutor runners = this.runners;
			if (runners != null) {
				runners.shutdown();
			}
		}
	}

	/**
	 * A call that waits.
	 */
	interface Waiting {

		/**
		 * Return whether the caller gave up, so that polling stops.
		 * @return whether the call was cancelled
		 */
		boolean isCancelled();

		/**
		 * Called once polling ends without a store failure.
		 * @param claim the last claim: the other attempt's outcome, or still in progress
		 * when the wait ran out or was cancelled
		 */
		void claimed(Claim claim);

		/**
		 * Called when a poll fails, after what it may have taken was abandoned.
		 * @param ex the store's failure
		 */
		void failed(RuntimeException ex);

	}

	private final class Poll implements Runnable {

		private final RecordKey record;

		private final AcquireRequest request;

		private final long deadlineNanos;

		private final Waiting waiting;

		private Claim last;

		private long pause = PollPauses.first();

		Poll(RecordKey record, AcquireRequest request, Claim first, long deadlineNanos, Waiting waiting) {
			this.record = record;
			this.request = request;
			this.last = first;
			this.deadlineNanos = deadlineNanos;
			this.waiting = waiting;
		}

		void next() {
			long leftNanos = this.deadlineNanos - AsyncWaiter.this.nanoClock.getAsLong();
			if (leftNanos <= 0 || this.waiting.isCancelled() || AsyncWaiter.this.acquirer.isRefusing()) {
				this.waiting.claimed(this.last);
				return;
			}
			long delay = PollPauses.millis(this.pause, leftNanos, (InProgress) this.last.result());
			this.pause = PollPauses.next(this.pause);
			try {
				scheduler().schedule(this, delay, TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException ex) {
				this.waiting.claimed(this.last);
			}
		}

		@Override
		public void run() {
			if (this.waiting.isCancelled() || AsyncWaiter.this.acquirer.isRefusing()) {
				this.waiting.claimed(this.last);
				return;
			}
			Claim claim;
			try {
				claim = AsyncWaiter.this.acquirer.acquireOnce(this.record, this.request);
			}
			catch (RuntimeException ex) {
				this.waiting.failed(ex);
				return;
			}
			this.last = claim;
			if (claim.result() instanceof InProgress) {
				next();
			}
			else if (claim.result() instanceof Acquired) {
				takeOver(() -> this.waiting.claimed(claim));
			}
			else {
				this.waiting.claimed(claim);
			}
		}

	}

}
