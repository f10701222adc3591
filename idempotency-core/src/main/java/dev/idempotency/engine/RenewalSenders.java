package dev.idempotency.engine;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends renewals off the sweeper thread of {@link LeaseRenewer}. A store whose
 * {@code renewAsync} blocks (the interface's default, or a Redis client without
 * asynchronous commands) would otherwise hold every lease's renewal behind one that
 * hangs; here a hanging renewal holds one of a few daemon threads, and the others go on.
 * Renewals are rare (only calls that outlast a third of their lock timeout are renewed),
 * so the hand-off costs the hot path nothing.
 */
final class RenewalSenders implements AutoCloseable {

	private static final int THREADS = 4;

	private final AtomicInteger threads = new AtomicInteger();

	private final ThreadPoolExecutor executor;

	RenewalSenders() {
		this.executor = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				(task) -> {
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
		this.executor.execute(renewal);
	}

	/**
	 * Let the renewals already handed over be sent, and refuse new ones.
	 */
	@Override
	public void close() {
		this.executor.shutdown();
	}

}
