package dev.idempotency.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.engine.LeaseRenewer.Renewal;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class LeaseRenewerTests {

	private static final Duration RETENTION = Duration.ofMinutes(1);

	private final AtomicLong clock = new AtomicLong(1_000_000_000L);

	// Set to make the sweeper's next reading of the clock throw an Error
	private final AtomicBoolean clockFails = new AtomicBoolean();

	private final List<Thread> sweepers = new ArrayList<>();

	// How often the sweeper has read the clock: about twice a sweep
	private final AtomicLong sweeperReads = new AtomicLong();

	private final RenewalCountingStore store = new RenewalCountingStore();

	private final LeaseRenewer renewer = new LeaseRenewer(this.store, this::now, (task) -> {
		Thread thread = new Thread(task, "test-renewer");
		thread.setDaemon(true);
		this.sweepers.add(thread);
		return thread;
	});

	@AfterEach
	void close() {
		this.renewer.close();
	}

	@Test
	void renewsEveryThirdOfTheLockTimeoutUntilStopped() {
		Renewal renewal = start("a", Duration.ofSeconds(3));
		advance(Duration.ofSeconds(1));
		await().until(() -> this.store.renewals("a") == 1);
		advance(Duration.ofSeconds(1));
		await().until(() -> this.store.renewals("a") == 2);
		renewal.stop();
		advance(Duration.ofSeconds(5));
		awaitSweep();
		assertThat(this.store.renewals("a")).isEqualTo(2);
	}

	@Test
	void firstRenewalIsPlannedFromTheGrantAndSentAtOnceWhenAlreadyDue() {
		// The acquire was sent at the grant; its reply came 2.5 s later, when the renewal
		// starts: a first renewal planned from now would be due at 3.5 s, after the lease
		long granted = this.clock.get();
		advance(Duration.ofMillis(2500));
		Attempt late = new Attempt(new RecordKey("renewals", "late"), "owner-late", 1, Duration.ofSeconds(3).toNanos(),
				granted, this.clock::get);
		this.renewer.start(late, Duration.ofSeconds(3), RETENTION);
		await().until(() -> this.store.renewals("late") == 1);
		assertThat(late.isLeaseHeld()).isTrue();
		advance(Duration.ofMillis(2999));
		assertThat(late.isLeaseHeld()).isTrue();
	}

	@Test
	void firstRenewalIsPlannedFromTheGrantNotFromWhenTheRenewalStarts() {
		long granted = this.clock.get();
		advance(Duration.ofMillis(500));
		Attempt attempt = new Attempt(new RecordKey("renewals", "planned"), "owner-planned", 1,
				Duration.ofSeconds(3).toNanos(), granted, this.clock::get);
		this.renewer.start(attempt, Duration.ofSeconds(3), RETENTION);
		awaitSweep();
		assertThat(this.store.renewals("planned")).isZero();
		// Due a period after the grant (sent a quarter period early), not after the start
		advance(Duration.ofMillis(250));
		await().until(() -> this.store.renewals("planned") == 1);
	}

	@Test
	void callThatEndsWithinAThirdOfItsLockTimeoutIsNeverRenewed() {
		for (int i = 0; i < 100; i++) {
			start("short", Duration.ofSeconds(3)).stop();
		}
		advance(Duration.ofSeconds(10));
		awaitSweep();
		assertThat(this.store.renewals("short")).isZero();
	}

	@Test
	void shorterLockTimeoutIsRenewedInTimeWhileALongerOneRuns() {
		Renewal slow = start("long", Duration.ofSeconds(30));
		Renewal fast = start("short", Duration.ofMillis(60));
		for (int i = 1; i <= 5; i++) {
			advance(Duration.ofMillis(20));
			int renewed = i;
			await().until(() -> this.store.renewals("short") == renewed);
		}
		assertThat(this.store.renewals("long")).isZero();
		fast.stop();
		slow.stop();
	}

	@Test
	void attemptsDueWithinAQuarterPeriodAreRenewedInOneSweep() {
		start("first", Duration.ofSeconds(3));
		advance(Duration.ofMillis(200));
		start("second", Duration.ofSeconds(3));
		advance(Duration.ofMillis(800));
		await().until(() -> this.store.renewals("first") == 1 && this.store.renewals("second") == 1);
	}

	@Test
	void renewalsDoNotWaitForOneThatHangs() {
		this.store.hang("hung");
		Attempt hung = new Attempt(new RecordKey("renewals", "hung"), "owner-hung", 1, Duration.ofSeconds(3).toNanos(),
				this.clock.get(), this.clock::get);
		this.renewer.start(hung, Duration.ofSeconds(3), RETENTION);
		List<Attempt> others = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			Attempt other = attempt("other-" + i, Duration.ofSeconds(3));
			this.renewer.start(other, Duration.ofSeconds(3), RETENTION);
			others.add(other);
		}
		for (int period = 1; period <= 3; period++) {
			advance(Duration.ofSeconds(1));
			int renewed = period;
			await().until(() -> others.stream().allMatch((other) -> this.store.renewals(other.key()) == renewed));
		}
		assertThat(this.store.renewals("hung")).isEqualTo(1);
		assertThat(hung.isLeaseHeld()).isFalse();
		assertThat(others).allMatch(Attempt::isLeaseHeld);
	}

	@Test
	void renewalThatBlocksTheThreadThatSendsItDelaysNoOtherLease() {
		// A store whose renewAsync sends on the calling thread, as the interface's
		// default does, and hangs there
		this.store.block("blocked");
		Attempt blocked = attempt("blocked", Duration.ofSeconds(3));
		this.renewer.start(blocked, Duration.ofSeconds(3), RETENTION);
		List<Attempt> others = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			Attempt other = attempt("other-" + i, Duration.ofSeconds(3));
			this.renewer.start(other, Duration.ofSeconds(3), RETENTION);
			others.add(other);
		}
		try {
			for (int period = 1; period <= 3; period++) {
				advance(Duration.ofSeconds(1));
				int renewed = period;
				await().until(() -> others.stream().allMatch((other) -> this.store.renewals(other.key()) == renewed));
			}
			assertThat(others).allMatch(Attempt::isLeaseHeld);
			assertThat(this.store.renewals("blocked")).isEqualTo(1);
		}
		finally {
			this.store.unblock();
		}
	}

	@Test
	void errorOutsideARenewalDoesNotEndTheSweeps() {
		start("survivor", Duration.ofSeconds(3));
		this.clockFails.set(true);
		advance(Duration.ofSeconds(1));
		await().until(() -> !this.clockFails.get());
		await().until(() -> this.store.renewals("survivor") == 1);
		advance(Duration.ofSeconds(1));
		await().until(() -> this.store.renewals("survivor") == 2);
	}

	@Test
	void leaseIsNotHeldOnceItsLastConfirmedEndHasPassed() {
		Attempt attempt = attempt("silent", Duration.ofSeconds(3));
		this.store.hang("silent");
		this.renewer.start(attempt, Duration.ofSeconds(3), RETENTION);
		advance(Duration.ofMillis(2999));
		assertThat(attempt.isLeaseHeld()).isTrue();
		advance(Duration.ofMillis(1));
		assertThat(attempt.isLeaseHeld()).isFalse();
	}

	// An interrupt has no meaning for the sweeper (close() stops it), but a flag left set
	// makes every park return at once: it would sweep without a pause for ever
	@Test
	void interruptedSweeperStillSleepsBetweenSweeps() {
		start("interrupted", Duration.ofSeconds(3));
		awaitSweep();
		this.sweepers.forEach(Thread::interrupt);
		awaitSweep();
		long before = this.sweeperReads.get();
		awaitSweep();
		// A sweep a millisecond at most (the probes' period), about two readings each; a
		// sweeper that never sleeps reads the clock over a million times meanwhile
		assertThat(this.sweeperReads.get() - before).isLessThan(10_000);
	}

	@Test
	void confirmedRenewalExtendsTheLeaseFromWhenItWasSent() {
		Attempt attempt = attempt("renewed", Duration.ofSeconds(3));
		this.renewer.start(attempt, Duration.ofSeconds(3), RETENTION);
		advance(Duration.ofSeconds(1));
		await().until(() -> this.store.renewals("renewed") == 1);
		advance(Duration.ofMillis(2999));
		assertThat(attempt.isLeaseHeld()).isTrue();
	}

	@Test
	void failingRenewalsKeepTryingAndLetTheLeaseRunOut() {
		Attempt attempt = attempt("failing", Duration.ofSeconds(3));
		this.store.fail("failing");
		this.renewer.start(attempt, Duration.ofSeconds(3), RETENTION);
		for (int i = 1; i <= 3; i++) {
			advance(Duration.ofSeconds(1));
			int tried = i;
			await().until(() -> this.store.renewals("failing") == tried);
		}
		assertThat(attempt.isLeaseHeld()).isFalse();
	}

	@Test
	void lostRecordStopsRenewalAndTellsTheAttempt() {
		Attempt attempt = attempt("lost", Duration.ofSeconds(3));
		this.store.lose("lost");
		this.renewer.start(attempt, Duration.ofSeconds(3), RETENTION);
		advance(Duration.ofSeconds(1));
		await().until(() -> !attempt.isLeaseHeld());
		advance(Duration.ofSeconds(1));
		awaitSweep();
		assertThat(this.store.renewals("lost")).isEqualTo(1);
		assertThat(this.renewer.running()).isZero();
	}

	private Renewal start(String key, Duration lease) {
		return this.renewer.start(attempt(key, lease), lease, RETENTION);
	}

	private Attempt attempt(String key, Duration lease) {
		return new Attempt(new RecordKey("renewals", key), "owner-" + key, 1, lease.toNanos(), this.clock.get(),
				this.clock::get);
	}

	private long now() {
		if (Thread.currentThread().getName().equals("test-renewer")) {
			this.sweeperReads.incrementAndGet();
			if (this.clockFails.compareAndSet(true, false)) {
				throw new OutOfMemoryError("Thrown by the test's clock, in the sweeper");
			}
		}
		return this.clock.get();
	}

	private void advance(Duration duration) {
		this.clock.addAndGet(duration.toNanos());
		this.sweepers.forEach(LockSupport::unpark);
	}

	/**
	 * Wait until the sweeper has swept at the current time: a probe attempt due now is
	 * renewed.
	 */
	private void awaitSweep() {
		String probe = "probe-" + this.clock.get();
		Renewal renewal = start(probe, Duration.ofMillis(3));
		advance(Duration.ofMillis(1));
		await().until(() -> this.store.renewals(probe) > 0);
		renewal.stop();
	}

	static final class RenewalCountingStore implements IdempotencyStore {

		private final Map<String, AtomicInteger> renewals = new ConcurrentHashMap<>();

		private final Map<String, String> behaviour = new ConcurrentHashMap<>();

		private final CountDownLatch unblocked = new CountDownLatch(1);

		int renewals(String key) {
			AtomicInteger count = this.renewals.get(key);
			return (count != null) ? count.get() : 0;
		}

		void lose(String key) {
			this.behaviour.put(key, "lose");
		}

		void hang(String key) {
			this.behaviour.put(key, "hang");
		}

		void fail(String key) {
			this.behaviour.put(key, "fail");
		}

		void block(String key) {
			this.behaviour.put(key, "block");
		}

		void unblock() {
			this.unblocked.countDown();
		}

		@Override
		public CompletionStage<Boolean> renewAsync(RecordKey key, String owner, long fence, Duration lease,
				Duration retention) {
			this.renewals.computeIfAbsent(key.key(), (k) -> new AtomicInteger()).incrementAndGet();
			String behaviour = this.behaviour.getOrDefault(key.key(), "renew");
			if (behaviour.equals("block")) {
				try {
					this.unblocked.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return switch (behaviour) {
				case "hang" -> new CompletableFuture<>();
				case "fail" -> CompletableFuture.failedFuture(new IllegalStateException("store down"));
				default -> CompletableFuture.completedFuture(!behaviour.equals("lose"));
			};
		}

		@Override
		public boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
			throw new UnsupportedOperationException();
		}

		@Override
		public CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention) {
			throw new UnsupportedOperationException();
		}

		@Override
		public AcquireResult acquire(RecordKey key, AcquireRequest request) {
			throw new UnsupportedOperationException();
		}

		@Override
		public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
			throw new UnsupportedOperationException();
		}

		@Override
		public boolean release(RecordKey key, String owner, long fence, Duration retention) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Optional<IdempotencyRecord> read(RecordKey key) {
			throw new UnsupportedOperationException();
		}

		@Override
		public boolean evict(RecordKey key) {
			throw new UnsupportedOperationException();
		}

		@Override
		public String type() {
			return "counting";
		}

	}

}
