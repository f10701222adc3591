package dev.idempotency.autoconfigure.failover;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyInProgressException;

import static org.awaitility.Awaitility.await;

/**
 * Threads that call {@link ExecutionLedger#charge} back to back until stopped, on keys
 * that keep coming: each call takes one of the newest keys, so every key is called about
 * {@value #DELIVERIES} times, some of them at once, and new keys are claimed and
 * completed all the time, failover included. Every call's outcome is recorded with the
 * {@link Phase} it started in.
 */
final class CallStream implements AutoCloseable {

	private static final int DELIVERIES = 4;

	private static final int WINDOW = 40;

	private final ExecutionLedger ledger;

	private final String keyPrefix = "stream-" + UUID.randomUUID() + "-";

	private final AtomicLong sequence = new AtomicLong();

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final StreamCalls calls = new StreamCalls();

	private final ExecutorService threads;

	private final List<Future<?>> loops = new ArrayList<>();

	private volatile Phase phase = Phase.BEFORE;

	private CallStream(ExecutionLedger ledger, int threads) {
		this.ledger = ledger;
		this.threads = Executors.newFixedThreadPool(threads);
	}

	/**
	 * Start calling.
	 * @param ledger the application's bean
	 * @param threads how many threads call
	 * @return the running stream
	 */
	static CallStream start(ExecutionLedger ledger, int threads) {
		CallStream stream = new CallStream(ledger, threads);
		for (int i = 0; i < threads; i++) {
			stream.loops.add(stream.threads.submit(stream::loop));
		}
		return stream;
	}

	/**
	 * Mark the calls that start from now on as of a phase.
	 * @param phase the phase
	 */
	void enter(Phase phase) {
		this.phase = phase;
	}

	/**
	 * Wait until calls that started in a phase returned a result for enough keys that
	 * match.
	 * @param phase the phase
	 * @param keys how many keys
	 * @param matching which keys count
	 * @param timeout how long to wait
	 */
	void awaitSucceeded(Phase phase, int keys, Predicate<String> matching, Duration timeout) {
		await().atMost(timeout)
			.until(() -> this.calls.keysSucceededIn(phase).stream().filter(matching).count() >= keys
					|| !this.calls.unexpected().isEmpty());
	}

	/**
	 * Stop calling, wait for the calls under way, and return what every call got.
	 * @return the calls
	 */
	StreamCalls stop() throws Exception {
		this.running.set(false);
		for (Future<?> loop : this.loops) {
			loop.get(1, TimeUnit.MINUTES);
		}
		this.threads.shutdown();
		return this.calls;
	}

	@Override
	public void close() {
		this.running.set(false);
		this.threads.shutdownNow();
	}

	private void loop() {
		while (this.running.get()) {
			String key = nextKey();
			Phase started = this.phase;
			this.ledger.forgetRan();
			try {
				Execution execution = this.ledger.charge(key);
				this.calls.succeeded(started, key, execution, this.ledger.ran());
			}
			catch (IdempotencyInProgressException ex) {
				this.calls.inProgress(started, key);
			}
			catch (IdempotencyException ex) {
				this.calls.failed(started, key, ex, this.ledger.ran());
			}
			catch (RuntimeException ex) {
				this.calls.unexpected(ex);
			}
		}
	}

	private String nextKey() {
		long newest = this.sequence.getAndIncrement() / DELIVERIES;
		long back = ThreadLocalRandom.current().nextLong(Math.min(newest, WINDOW) + 1);
		return this.keyPrefix + (newest - back);
	}

	/**
	 * When a call started, relative to the failure of a primary.
	 */
	enum Phase {

		/**
		 * Before it failed.
		 */
		BEFORE,

		/**
		 * From its failure until its replacement serves its keys.
		 */
		FAILOVER,

		/**
		 * Once its replacement served its keys.
		 */
		AFTER

	}

}
