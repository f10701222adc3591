package dev.idempotency.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.IdempotencyShutdownException;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * Shuts an {@link IdempotencyEngine} down in order when the application context closes:
 * new calls are refused ({@link IdempotencyShutdownException}, before their method runs
 * or the store is asked), and the calls already running keep their leases renewed until
 * they complete or release their records, so that they do so before the store's
 * connections close in a later phase.
 * <p>
 * The wait is bounded by the lifecycle processor's timeout for this phase (Spring Boot's
 * {@code spring.lifecycle.timeout-per-shutdown-phase}): shortly before it runs out, the
 * records of calls whose methods have not started (batch items waiting for the items
 * before them) are released, those methods never start, and a method still running is
 * left to finish or to its lease; a warning gives the count. The processor then goes on
 * closing the context.
 * <p>
 * A call waiting for another attempt ({@code WAIT}) stops waiting and fails as in
 * progress; a call whose acquire was on its way when the shutdown began releases the
 * record it took and is refused. A restart of the context admits calls again.
 * <p>
 * A call whose own method closes the context (on its thread) is not waited for: it can
 * only end once the stop returns, and then the store may be closed, so its record is left
 * to its lease, and a warning says so.
 */
public final class IdempotencyShutdownLifecycle implements SmartLifecycle {

	/**
	 * The phase this lifecycle stops in: after the components that take work in (message
	 * listener containers stop at {@link SmartLifecycle#DEFAULT_PHASE} and Kafka's at
	 * {@code DEFAULT_PHASE - 100}, a web server's graceful shutdown at
	 * {@code DEFAULT_PHASE - 1024} and the server at {@code DEFAULT_PHASE - 2048}), so
	 * that the work they finish meanwhile is still admitted, and before the store's
	 * connections (Spring Data Redis's connection factories stop at phase 0).
	 */
	public static final int SMART_LIFECYCLE_PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	// What is left of the bound once the wait ends: enough to release a few records
	// before the processor moves on to close the store's connections
	private static final Duration MAX_MARGIN = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(IdempotencyShutdownLifecycle.class);

	private final IdempotencyEngine engine;

	private final Duration timeout;

	private final Duration wait;

	private volatile boolean running;

	/**
	 * Create a lifecycle for an engine.
	 * @param engine the engine
	 * @param timeout the lifecycle processor's timeout for this phase: the wait for
	 * running calls ends a tenth of it (at most a second) earlier
	 */
	public IdempotencyShutdownLifecycle(IdempotencyEngine engine, Duration timeout) {
		Assert.notNull(engine, "'engine' must not be null");
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(!timeout.isNegative(), "'timeout' must not be negative");
		this.engine = engine;
		this.timeout = timeout;
		Duration margin = timeout.dividedBy(10);
		this.wait = timeout.minus((margin.compareTo(MAX_MARGIN) < 0) ? margin : MAX_MARGIN);
	}

	@Override
	public void start() {
		this.engine.inFlight().admitAgain();
		this.running = true;
	}

	@Override
	public void stop() {
		CountDownLatch stopped = new CountDownLatch(1);
		stop(stopped::countDown);
		try {
			stopped.await(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Refuse new calls, and run the callback once every running call has ended, or
	 * shortly before the phase's timeout, on a thread of its own when calls are running.
	 * The calls on the current thread are not waited for.
	 * @param callback what the lifecycle processor waits for
	 */
	@Override
	public void stop(Runnable callback) {
		this.running = false;
		InFlightCalls inFlight = this.engine.inFlight();
		Thread stopping = Thread.currentThread();
		CompletableFuture<Void> drained = inFlight.refuse(stopping);
		int closing = inFlight.runningOn(stopping);
		if (closing > 0) {
			logger.warn("The application context is closed from inside " + closing + " idempotent call(s) on thread '"
					+ stopping.getName() + "': the shutdown does not wait for them, since they can only end after it, "
					+ "and if the store's connections close first their records are left to their leases "
					+ "(lock-timeout). Close the context from another thread.");
		}
		if (drained.isDone()) {
			try {
				abandonUnstartedOnStoppingThread(drained, closing);
			}
			finally {
				callback.run();
			}
			return;
		}
		if (logger.isInfoEnabled()) {
			logger.info("Waiting up to " + this.wait.toMillis() + " ms for " + inFlight.running()
					+ " idempotent call(s) to complete or release their records");
		}
		Thread waiter = new Thread(() -> {
			try {
				await(drained, closing);
			}
			finally {
				callback.run();
			}
		}, "idempotency-shutdown");
		waiter.setDaemon(true);
		waiter.start();
	}

	private void await(CompletableFuture<Void> drained, int closing) {
		try {
			drained.get(this.wait.toNanos(), TimeUnit.NANOSECONDS);
			logger.info("Idempotent calls ended: shutdown can proceed");
			abandonUnstartedOnStoppingThread(drained, closing);
			return;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (TimeoutException | ExecutionException ex) {
			// The bound is reached (the future never fails)
		}
		InFlightCalls.Unfinished unfinished = this.engine.inFlight().abandonUnstarted(this.engine.getStore(), drained);
		if (unfinished.calls() > 0) {
			logger.warn(unfinished.calls() + " idempotent call(s) still running " + this.wait.toMillis()
					+ " ms into the shutdown (the phase's bound is " + this.timeout.toMillis()
					+ " ms): released the records of " + unfinished.released()
					+ " whose method had not started, which will not run; left the records of the other "
					+ (unfinished.calls() - unfinished.released())
					+ " to their leases (lock-timeout), after which a later delivery takes them over. "
					+ "Set spring.lifecycle.timeout-per-shutdown-phase longer than the longest call.");
		}
	}

	// The calls of the thread that stops, such as the items of its batch after the one
	// whose method closes the context, would start only once the store may be closed
	private void abandonUnstartedOnStoppingThread(CompletableFuture<Void> drained, int closing) {
		if (closing > 0) {
			this.engine.inFlight().abandonUnstarted(this.engine.getStore(), drained);
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return SMART_LIFECYCLE_PHASE;
	}

}
