package dev.idempotency.engine;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

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

class LeaseRenewerTests {

	private final RenewalCountingStore store = new RenewalCountingStore();

	private final LeaseRenewer renewer = new LeaseRenewer(this.store);

	@AfterEach
	void close() {
		this.renewer.close();
	}

	@Test
	void renewsEveryThirdOfTheLockTimeoutUntilStopped() throws InterruptedException {
		Renewal renewal = this.renewer.start(attempt("a"), Duration.ofMillis(150));
		Thread.sleep(400);
		renewal.stop();
		int renewed = this.store.renewals("a");
		assertThat(renewed).isBetween(3, 9);
		Thread.sleep(200);
		assertThat(this.store.renewals("a")).isEqualTo(renewed);
	}

	@Test
	void callThatEndsWithinAThirdOfItsLockTimeoutIsNeverRenewed() throws InterruptedException {
		for (int i = 0; i < 100; i++) {
			this.renewer.start(attempt("short"), Duration.ofSeconds(3)).stop();
		}
		Thread.sleep(100);
		assertThat(this.store.renewals("short")).isZero();
	}

	@Test
	void shorterLockTimeoutIsRenewedInTimeWhileALongerOneRuns() throws InterruptedException {
		Renewal slow = this.renewer.start(attempt("long"), Duration.ofSeconds(30));
		Thread.sleep(50);
		Renewal fast = this.renewer.start(attempt("short"), Duration.ofMillis(60));
		Thread.sleep(300);
		fast.stop();
		slow.stop();
		assertThat(this.store.renewals("short")).isGreaterThanOrEqualTo(5);
		assertThat(this.store.renewals("long")).isZero();
	}

	@Test
	void firstAttemptAfterAQuietSpellIsRenewed() throws InterruptedException {
		this.renewer.start(attempt("first"), Duration.ofMillis(30)).stop();
		Thread.sleep(200);
		Renewal renewal = this.renewer.start(attempt("after"), Duration.ofMillis(60));
		Thread.sleep(200);
		renewal.stop();
		assertThat(this.store.renewals("after")).isGreaterThanOrEqualTo(3);
	}

	@Test
	void lostRecordStopsRenewalAndTellsTheAttempt() throws InterruptedException {
		Attempt attempt = attempt("lost");
		this.store.lose("lost");
		this.renewer.start(attempt, Duration.ofMillis(30));
		Thread.sleep(200);
		assertThat(attempt.isLeaseHeld()).isFalse();
		assertThat(this.store.renewals("lost")).isEqualTo(1);
	}

	private static Attempt attempt(String key) {
		return new Attempt(new RecordKey("renewals", key), "owner-" + key, 1);
	}

	static final class RenewalCountingStore implements IdempotencyStore {

		private final Map<String, AtomicInteger> renewals = new ConcurrentHashMap<>();

		private final Map<String, Boolean> lost = new ConcurrentHashMap<>();

		int renewals(String key) {
			AtomicInteger count = this.renewals.get(key);
			return (count != null) ? count.get() : 0;
		}

		void lose(String key) {
			this.lost.put(key, true);
		}

		@Override
		public boolean renew(RecordKey key, String owner, long fence, Duration lease) {
			this.renewals.computeIfAbsent(key.key(), (k) -> new AtomicInteger()).incrementAndGet();
			return !this.lost.containsKey(key.key());
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
