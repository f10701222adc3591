package dev.idempotency.engine;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends renewals off the sweeper thread of {@link LeaseRenewer}. A store whose
 * {@code renewAsync} blocks (the interface's default, or a Redis client without
 * asynchronous commands) would otherwise hold every lease's renewal behind one that
 * hangs.
 * <p>
 * A few threads send renewals in turn, which is all a store that answers at once
 * (Lettuce) needs, even for thousands of renewals in one sweep. When renewals wait and
 * none has been sent for {@link #STALL_NANOS} (every thread hangs in the store, such as
 * on records of an unreachable shard), {@link #unstick()} starts a thread for each
 * renewal that waits, up to {@value #MAX_THREADS} in all: a renewal that hangs then
 * delays only its own attempt. The threads beyond the first few end once idle.
 */
final class RenewalSenders implements AutoCloseable {

	private static final int THREADS = 4;

	/**
	 * The most threads that renewals hanging at once may hold; past them, renewals wait.
	 */
	static final int MAX_THREADS = 64;

	/**
	 * How long renewals may wait without any being sent before more threads start: the
	 * longest the sweeper sleeps while renewals wait.
	 */
	static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private final AtomicInteger threads = new AtomicInteger();

	private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();

	private final ThreadPoolExecutor executor;

	// System.nanoTime() when a thread last returned from the store: their progress
	private volatile long sentNanos = System.nanoTime();

	RenewalSenders() {
		this.executor = new ThreadPoolExecutor(THREADS, MAX_THREADS, 30, TimeUnit.SECONDS, this.queue, (task) -> {
			Thread thread = new Thread(task, "idempotency-lease-renewal-" + this.threads.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.executor.allowCoreThreadTimeOut(true);
	}

	/**
	 * Send a renewal.
	 * @param renewal what sends it and handles its reply
	 * @throws java.util.concurrent.RejectedExecutionException once closed, or when no
	 * thread can be started
	 */
	void send(Runnable renewal) {
		this.executor.execute(new Queued(renewal, System.nanoTime()));
	}

	/**
	 * Return whether renewals wait for a thread, so that the sweeper calls
	 * {@link #unstick()} again within {@link #STALL_NANOS}.
	 * @return whether any renewal waits
	 */
	boolean isBacklogged() {
		return !this.queue.isEmpty();
	}

	/**
	 * Start a thread for each renewal that waits once the oldest has waited
	 * {@link #STALL_NANOS} and no thread has returned from the store for as long (every
	 * thread hangs there), and let the extra threads end once nothing waits. Called by
	 * the sweeper on each sweep.
	 */
	void unstick() {
		int size = this.executor.getCorePoolSize();
		if (!(this.queue.peek() instanceof Queued oldest)) {
			if (size > THREADS) {
				// Only idle threads end: one that hangs in the store keeps its renewal
				this.executor.setCorePoolSize(THREADS);
			}
			return;
		}
		long now = System.nanoTime();
		if (size < MAX_THREADS && now - oldest.queuedNanos >= STALL_NANOS && now - this.sentNanos >= STALL_NANOS) {
			// Starts the new threads at once, for the renewals that wait
			this.executor.setCorePoolSize(Math.min(MAX_THREADS, size + this.queue.size()));
		}
	}

	/**
	 * Let the renewals already handed over be sent, and refuse new ones.
	 */
	@Override
	public void close() {
		this.executor.shutdown();
	}

	private final class Queued implements Runnable {

		private final Runnable renewal;

		private final long queuedNanos;

		Queued(Runnable renewal, long queuedNanos) {
			this.renewal = renewal;
			this.queuedNanos = queuedNanos;
		}

		@Override
		public void run() {
			try {
				this.renewal.run();
			}
			finally {
				RenewalSenders.this.sentNanos = System.nanoTime();
			}
		}

	}

}
