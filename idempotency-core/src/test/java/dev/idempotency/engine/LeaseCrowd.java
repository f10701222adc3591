package dev.idempotency.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.idempotency.engine.LeaseRenewer.Renewal;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many attempts that each claimed a record and have a renewer keep their lease, each
 * renewal started as soon as its claim, as a crowd of running methods would.
 */
final class LeaseCrowd implements AutoCloseable {

	private final List<Attempt> attempts = new ArrayList<>();

	private final List<Renewal> renewals = new ArrayList<>();

	private final Duration lease;

	private final Duration retention;

	private LeaseCrowd(Duration lease, Duration retention) {
		this.lease = lease;
		this.retention = retention;
	}

	/**
	 * Claim {@code size} new records of an operation and start renewing each.
	 * @param store where to claim them
	 * @param renewer what renews them
	 * @param name the operation
	 * @param size how many
	 * @param lease the lease of each
	 * @param retention the retention of each
	 * @return the running crowd; close it to stop the renewals
	 */
	static LeaseCrowd start(IdempotencyStore store, LeaseRenewer renewer, String name, int size, Duration lease,
			Duration retention) {
		LeaseCrowd crowd = new LeaseCrowd(lease, retention);
		for (int i = 0; i < size; i++) {
			RecordKey key = new RecordKey(name, "k" + i);
			long sent = System.nanoTime();
			AcquireResult acquired = store.acquire(key, new AcquireRequest("owner-" + i, lease, retention, null));
			assertThat(acquired).isEqualTo(new AcquireResult.Acquired(1, false));
			Attempt attempt = new Attempt(key, "owner-" + i, 1, lease.toNanos(), sent, System::nanoTime);
			crowd.attempts.add(attempt);
			crowd.renewals.add(renewer.start(attempt, lease, retention));
		}
		return crowd;
	}

	List<Attempt> attempts() {
		return this.attempts;
	}

	/**
	 * Assert that every attempt still holds its lease, by its own account and by the
	 * store's: an intruder is told that each record is in progress.
	 * @param store the store to ask
	 */
	void assertEveryLeaseHeld(IdempotencyStore store) {
		assertThat(this.attempts).allMatch(Attempt::isLeaseHeld);
		for (Attempt attempt : this.attempts) {
			assertThat(
					store.acquire(attempt.record(), new AcquireRequest("intruder", this.lease, this.retention, null)))
				.as("%s", attempt)
				.isInstanceOf(AcquireResult.InProgress.class);
		}
	}

	@Override
	public void close() {
		this.renewals.forEach(Renewal::stop);
	}

}
