package dev.idempotency.test;

import java.time.Duration;
import java.util.UUID;

import org.awaitility.Awaitility;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;

import org.springframework.util.Assert;

/**
 * Records as failures leave them, made through the store's own transitions, so that a
 * test can show what the application does next. Works with any {@link IdempotencyStore}:
 * inject the application's.
 * <p>
 * A record is named by the operation name ({@code @Idempotent(name)}, by default
 * {@code SimpleClassName.methodName}) and the key as the operation evaluates it (a key
 * longer than {@code idempotency.max-key-length}, or one that starts with
 * {@code sha256:}, is stored as {@code sha256:} followed by its lowercase hex SHA-256:
 * give that form here). <pre class="code">
 * AbandonedAttempt crashed = StoreScenarios.crashedAttempt(store, "Payments.charge", "order-42");
 * payments.charge("order-42", 1250); // takes the record over, with a higher fence
 * assertThat(crashed.complete()).isFalse(); // the crashed attempt, back as a zombie, is refused
 * </pre>
 */
public final class StoreScenarios {

	private static final Duration LEASE = Duration.ofMillis(100);

	private static final Duration RETENTION = Duration.ofHours(1);

	private static final Duration DEADLINE = Duration.ofSeconds(10);

	private static final String PROBE_NAME = "idempotency-test-clock-probe";

	private StoreScenarios() {
	}

	/**
	 * Leave the record as an attempt that crashed while it ran: in progress, its lease
	 * run out on the store's clock. The next call for the key takes it over (its
	 * {@code IdempotencyContext.fence()} one higher) and runs the method.
	 * @param store the application's store
	 * @param name the operation name
	 * @param key the idempotency key
	 * @return the crashed attempt, which becomes a zombie once the record is taken over
	 * @throws IllegalStateException if the store already holds a record for the key
	 */
	public static AbandonedAttempt crashedAttempt(IdempotencyStore store, String name, String key) {
		Assert.notNull(store, "'store' must not be null");
		RecordKey recordKey = new RecordKey(name, key);
		String owner = "crashed-attempt-" + UUID.randomUUID();
		AcquireResult result = store.acquire(recordKey, new AcquireRequest(owner, LEASE, RETENTION, null));
		if (!(result instanceof Acquired acquired)) {
			throw new IllegalStateException(
					"Cannot leave a crashed attempt on " + recordKey + ": the store already holds a record for it ("
							+ result + "). Use a key of its own in each " + "test, or evict the record first");
		}
		awaitStoreTime(store, LEASE);
		return new AbandonedAttempt(store, recordKey, owner, acquired.fence());
	}

	/**
	 * Leave the record as an attempt that lost its lease while it ran, and return it: a
	 * crashed attempt ({@link #crashedAttempt}) that the given call of the application
	 * then takes over. Every transition the zombie tries afterwards is refused, whatever
	 * the successor did.
	 * @param store the application's store
	 * @param name the operation name
	 * @param key the idempotency key
	 * @param successor a call of the application's idempotent method with that key
	 * @return the zombie
	 * @throws AssertionError if the successor did not take the record over
	 */
	public static AbandonedAttempt zombieAttempt(IdempotencyStore store, String name, String key, Runnable successor) {
		Assert.notNull(successor, "'successor' must not be null");
		AbandonedAttempt zombie = crashedAttempt(store, name, key);
		successor.run();
		IdempotencyRecord record = store.read(zombie.key())
			.orElseThrow(() -> new AssertionError("The successor left no record on " + zombie.key()
					+ ": is the call idempotent, with that operation name and key?"));
		if (record.fence() <= zombie.fence()) {
			throw new AssertionError("The successor did not take " + zombie.key() + " over: its fence is still "
					+ record.fence() + ". Is the call idempotent, with that operation name and key?");
		}
		return zombie;
	}

	/**
	 * Wait until {@code duration} has passed on the store's clock, which need not be this
	 * JVM's: a probe record acquired now with that lease is polled until another owner
	 * can take it over.
	 */
	private static void awaitStoreTime(IdempotencyStore store, Duration duration) {
		RecordKey probe = new RecordKey(PROBE_NAME, UUID.randomUUID().toString());
		store.acquire(probe, new AcquireRequest("probe", duration, RETENTION, null));
		AcquireRequest prober = new AcquireRequest("prober", RETENTION, RETENTION, null);
		Awaitility.await("the lease to run out on the store's clock")
			.atMost(DEADLINE)
			.pollInterval(Duration.ofMillis(10))
			.until(() -> store.acquire(probe, prober) instanceof Acquired);
		store.evict(probe);
	}

}
