package dev.idempotency.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Keeps blocking store calls off event-loop threads. The value of an asynchronous method
 * often arrives on the I/O thread of a reactive client, such as Lettuce's or Reactor
 * Netty's: completing the record there would block that thread for a store round trip,
 * and with Lettuce could wait for a reply that only the blocked thread can read. Work
 * that arrives on such a thread (a Netty {@code FastThreadLocalThread}, or a thread
 * Reactor marks {@code NonBlocking}) is handed to daemon threads of the engine's own; on
 * any other thread it runs at once.
 * <p>
 * Work handed over may take long: a completion is retried while the store fails, for up
 * to a lease, and a store may be slow for some keys only (a stalled cluster node, a
 * replica that does not acknowledge). So it never queues behind other work while fewer
 * than {@value #MAX_THREADS} threads are busy: it goes to an idle thread, or to a new
 * one, and threads end after a minute idle. Past that bound it waits in a queue for the
 * next thread that frees up, never refused: work refused would leave its record in
 * progress and its caller waiting, and running it on the event loop would block it.
 */
final class EventLoopHandoff implements AutoCloseable {

	private static final String[] NON_BLOCKING_TYPES = { "io.netty.util.concurrent.FastThreadLocalThread",
			"reactor.core.scheduler.NonBlocking" };

	/**
	 * Most threads at once: as many store calls as may block at the same time before
	 * further work waits for one of them.
	 */
	static final int MAX_THREADS = 64;

	private final Class<?>[] nonBlocking;

	private final AtomicInteger threads = new AtomicInteger();

	private volatile @Nullable ThreadPoolExecutor executor;

	private volatile boolean closed;

	EventLoopHandoff() {
		this(EventLoopHandoff.class.getClassLoader());
	}

	EventLoopHandoff(@Nullable ClassLoader classLoader) {
		List<Class<?>> types = new ArrayList<>();
		for (String name : NON_BLOCKING_TYPES) {
			if (ClassUtils.isPresent(name, classLoader)) {
				types.add(ClassUtils.resolveClassName(name, classLoader));
			}
		}
		this.nonBlocking = types.toArray(new Class<?>[0]);
	}

	/**
	 * Run work that blocks: at once, unless the current thread must not block.
	 * @param work the work
	 */
	void execute(Runnable work) {
		if (!isNonBlocking(Thread.currentThread())) {
			work.run();
			return;
		}
		handOver(work);
	}

	/**
	 * Run the recording of an asynchronous call's outcome: as {@link #execute}, and on a
	 * thread of the engine's own when the current thread runs inside a Spring-managed
	 * transaction. An asynchronous call's record completes when its value arrives,
	 * whatever transaction the thread it arrives on is in: a store that joins
	 * transactions would otherwise complete it inside that one, whose rollback, unrelated
	 * to the call's effect, would leave the record in progress for the next delivery to
	 * run again.
	 * @param work the work
	 */
	void executeOutsideTransactions(Runnable work) {
		if (AfterCommit.inTransaction()) {
			handOver(work);
			return;
		}
		execute(work);
	}

	private void handOver(Runnable work) {
		try {
			executor().execute(work);
		}
		catch (RejectedExecutionException ex) {
			// The engine is shut down, but calls that started before still end, and
			// never on this thread: a Lettuce I/O thread would wait for a reply that only
			// it can read. Rare enough for a thread each.
			Thread thread = new Thread(work, "idempotency-complete-after-close-" + this.threads.incrementAndGet());
			thread.setDaemon(true);
			thread.start();
		}
	}

	boolean isNonBlocking(Thread thread) {
		for (Class<?> type : this.nonBlocking) {
			if (type.isInstance(thread)) {
				return true;
			}
		}
		return false;
	}

	private ThreadPoolExecutor executor() {
		ThreadPoolExecutor executor = this.executor;
		if (executor == null) {
			synchronized (this) {
				executor = this.executor;
				if (executor == null) {
					if (this.closed) {
						throw new RejectedExecutionException("The idempotency engine was shut down");
					}
					executor = new ThreadPoolExecutor(0, MAX_THREADS, 60, TimeUnit.SECONDS, new IdleThreadsFirst(),
							(task) -> {
								Thread thread = new Thread(task,
										"idempotency-complete-" + this.threads.incrementAndGet());
								thread.setDaemon(true);
								return thread;
							}, EventLoopHandoff::queue);
					this.executor = executor;
				}
			}
		}
		return executor;
	}

	// Every thread is busy: the work waits for the next one that frees up
	private static void queue(Runnable work, ThreadPoolExecutor executor) {
		if (executor.isShutdown()) {
			throw new RejectedExecutionException("The idempotency engine was shut down");
		}
		((IdleThreadsFirst) executor.getQueue()).enqueue(work);
	}

	/**
	 * Stop the threads once the work handed over already has run; work handed over later
	 * runs on a thread of its own.
	 */
	@Override
	public void close() {
		synchronized (this) {
			this.closed = true;
			ThreadPoolExecutor executor = this.executor;
			if (executor != null) {
				executor.shutdown();
			}
		}
	}

	/**
	 * A queue that takes work from the executor only when an idle thread waits for it, so
	 * that the executor starts a new thread (up to its bound) rather than queue work
	 * behind busy ones; work that no thread can take is queued when the executor refuses
	 * it, and the threads take it as they free up.
	 */
	private static final class IdleThreadsFirst extends LinkedTransferQueue<Runnable> {

		@Override
		public boolean offer(Runnable work) {
			return tryTransfer(work);
		}

		void enqueue(Runnable work) {
			super.offer(work);
		}

	}

}
