package dev.idempotency.test.store;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import org.awaitility.Awaitility;

/**
 * The durations, fingerprints, keys and requests the store contract uses, and its ways of
 * waiting on the store's clock.
 */
final class ContractFixtures {

	static final Duration LEASE = Duration.ofSeconds(30);

	static final Duration RETENTION = Duration.ofMinutes(10);

	static final Duration SHORT = Duration.ofMillis(150);

	static final Duration DEADLINE = Duration.ofSeconds(10);

	static final byte[] FINGERPRINT_A = bytes("fingerprint-a");

	static final byte[] FINGERPRINT_B = bytes("fingerprint-b");

	private ContractFixtures() {
	}

	static RecordKey newKey() {
		return new RecordKey("contract", UUID.randomUUID().toString());
	}

	static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, LEASE, RETENTION, null);
	}

	static AcquireRequest withFingerprint(String owner, byte[] fingerprint) {
		return new AcquireRequest(owner, LEASE, RETENTION, fingerprint);
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	static <T> T poll(Supplier<T> action, Predicate<T> done) {
		return Awaitility.await().atMost(DEADLINE).pollInterval(Duration.ofMillis(10)).until(action::get, done::test);
	}

	/**
	 * Wait until at least {@code duration} has passed on the store's clock, which may not
	 * be this JVM's: a probe record acquired now with that lease is polled until it can
	 * be taken over.
	 */
	static void awaitStoreTime(IdempotencyStore store, Duration duration) {
		RecordKey probe = newKey();
		store.acquire(probe, new AcquireRequest("probe", duration, RETENTION, null));
		poll(() -> store.acquire(probe, request("prober")), Acquired.class::isInstance);
	}

}
