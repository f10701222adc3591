package dev.idempotency.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.engine.LeaseRenewerTests.RenewalCountingStore;
import dev.idempotency.store.RecordKey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The renewer: what happens when its thread cannot start, and when it is closed while
 * attempts still run.
 */
class LeaseRenewerFailureTests {

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final Duration RETENTION = Duration.ofMinutes(1);

	private final AtomicLong clock = new AtomicLong(1_000_000_000L);

	private final List<Thread> sweepers = new ArrayList<>();

	private final RenewalCountingStore store = new RenewalCountingStore();

	// The JVM reports a thread it cannot create from Thread.start(), not from the
	// constructor: "OutOfMemoryError: unable to create native thread".
	private final AtomicBoolean failNextStart = new AtomicBoolean();

	private final LeaseRenewer renewer = new LeaseRenewer(this.store, this.clock::get, threadFactory());

	@AfterEach
	void close() {
		this.renewer.close();
	}

	@Test
	void sweeperThatOnceFailedToStartStillRenewsLaterAttempts() {
		this.failNextStart.set(true);
		assertThatExceptionOfType(OutOfMemoryError.class)
			.isThrownBy(() -> this.renewer.start(attempt("unlucky"), LEASE, RETENTION));
		this.renewer.start(attempt("later"), LEASE, RETENTION);
		advance(Duration.ofSeconds(1));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.renewals("later") == 1);
	}

	@Test
	void attemptWhoseRenewalFailedToStartIsNotKeptForRenewal() {
		this.failNextStart.set(true);
		assertThatExceptionOfType(OutOfMemoryError.class)
			.isThrownBy(() -> this.renewer.start(attempt("unlucky"), LEASE, RETENTION));
		// The caller got no handle to stop it: kept, it would be renewed for ever once
		// a sweeper runs, and its record would never be taken over.
		assertThat(this.renewer.running()).isZero();
	}

	@Test
	void attemptRunningWhenTheRenewerClosesKeepsItsLeaseRenewed() {
		Attempt attempt = attempt("running");
		this.renewer.start(attempt, LEASE, RETENTION);
		this.renewer.close();
		advance(Duration.ofSeconds(1));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.store.renewals("running") == 1);
	}

	private Attempt attempt(String key) {
		return new Attempt(new RecordKey("renewer", key), "owner-" + key, 1, LEASE.toNanos(), this.clock.get(),
				this.clock::get);
	}

	private void advance(Duration duration) {
		this.clock.addAndGet(duration.toNanos());
		this.sweepers.forEach(LockSupport::unpark);
	}

	private ThreadFactory threadFactory() {
		return (task) -> {
			Thread thread = new Thread(task, "failing-renewer") {

				@Override
				public synchronized void start() {
					if (LeaseRenewerFailureTests.this.failNextStart.getAndSet(false)) {
						throw new OutOfMemoryError("unable to create native thread: possibly out of memory");
					}
					super.start();
				}

			};
			thread.setDaemon(true);
			this.sweepers.add(thread);
			return thread;
		};
	}

}
