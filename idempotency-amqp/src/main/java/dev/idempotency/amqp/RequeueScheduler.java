package dev.idempotency.amqp;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that settle the messages of asynchronous listeners once their back-off is
 * over, owned by one configurer. Settling may wait for the broker (a requeue to the tail
 * waits up to {@value TailRequeue#CONFIRM_SECONDS} s for its confirmation, a channel in
 * flow control blocks), so it must not run on {@code ForkJoinPool.commonPool()}, where
 * {@code CompletableFuture.delayedExecutor} runs it and where many held messages would
 * take every thread from the application, nor on a thread started per message, where that
 * pool has a single thread. A few daemon threads, ended after a minute idle.
 */
final class RequeueScheduler implements AutoCloseable {

	private static final int THREADS = Math.max(2, Runtime.getRuntime().availableProcessors());

	private final ScheduledThreadPoolExecutor executor;

	private final Set<Waiting> waiting = ConcurrentHashMap.newKeySet();

	RequeueScheduler() {
		AtomicInteger threads = new AtomicInteger();
		this.executor = new ScheduledThreadPoolExecutor(THREADS, (task) -> {
			Thread thread = new Thread(task, "idempotency-rabbit-requeue-" + threads.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
		this.executor.setKeepAliveTime(1, TimeUnit.MINUTES);
		this.executor.allowCoreThreadTimeOut(true);
	}

	/**
	 * Settle a message after a delay.
	 * @param delay the back-off
	 * @param settle what settles it
	 */
	void schedule(Duration delay, Runnable settle) {
		Waiting waiting = new Waiting(settle);
		this.waiting.add(waiting);
		try {
			this.executor.schedule(waiting, delay.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Closed: settle at once, as a stopping container does
			waiting.run();
		}
	}

	/**
	 * Stop the threads, settling at once every message still waiting for its back-off, so
	 * that none stays unacknowledged for as long as its channel is open.
	 */
	@Override
	public void close() {
		// The tasks shutdownNow() returns are cancelled once the executor stopped:
		// running
		// them does nothing, so the messages are settled by what this class kept of them
		this.executor.shutdownNow();
		this.waiting.forEach(Waiting::run);
	}

	// A settlement that runs once, whether on its thread after the back-off or at close
	private final class Waiting implements Runnable {

		private final Runnable settle;

		private final AtomicBoolean started = new AtomicBoolean();

		Waiting(Runnable settle) {
			this.settle = settle;
		}

		@Override
		public void run() {
			if (this.started.compareAndSet(false, true)) {
				RequeueScheduler.this.waiting.remove(this);
				this.settle.run();
			}
		}

	}

}
