package dev.idempotency.amqp;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
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
		try {
			this.executor.schedule(settle, delay.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			// Closed: settle at once, as a stopping container does
			settle.run();
		}
	}

	/**
	 * Stop the threads, settling at once every message still waiting for its back-off, so
	 * that none stays unacknowledged for as long as its channel is open.
	 */
	@Override
	public void close() {
		List<Runnable> waiting = this.executor.shutdownNow();
		waiting.forEach(Runnable::run);
	}

}
