package dev.idempotency.store.memory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the in-memory store does beyond the store contract (which
 * {@code InMemoryIdempotencyStoreContractTests} of {@code idempotency-test} runs): its
 * clock and its bound.
 */
class InMemoryIdempotencyStoreTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final MutableClock clock = new MutableClock();

	private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();

	@Test
	void typeIsMemory() {
		assertThat(this.store.type()).isEqualTo("memory");
	}

	@Test
	void leaseAndRetentionFollowTheInjectedClock() {
		InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(10, this.clock);
		RecordKey key = newKey();
		store.acquire(key, new AcquireRequest("a", LEASE, Duration.ofMinutes(5), null));
		this.clock.advance(LEASE.minusMillis(1));
		assertThat(store.acquire(key, request("b"))).isEqualTo(new InProgress(1, Duration.ofMillis(1)));
		this.clock.advance(Duration.ofMillis(1));
		assertThat(store.acquire(key, request("b"))).isEqualTo(new Acquired(2, true));
		store.complete(key, "b", 2, StoredResult.of(new byte[] { 1 }), Duration.ofHours(1));
		this.clock.advance(Duration.ofHours(1).minusMillis(1));
		assertThat(store.acquire(key, request("c"))).isInstanceOf(Completed.class);
		this.clock.advance(Duration.ofMillis(1));
		assertThat(store.read(key)).isEmpty();
		assertThat(store.acquire(key, request("c"))).isEqualTo(new Acquired(1, false));
	}

	@Test
	void fullStoreOfLiveAttemptsRejectsNewKeys() {
		InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(3, this.clock);
		RecordKey first = newKey();
		store.acquire(first, request("a"));
		store.acquire(newKey(), request("a"));
		store.acquire(newKey(), request("a"));
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> store.acquire(newKey(), request("a")))
			.withMessageContaining("store is full");
		assertThat(store.acquire(first, request("b"))).isInstanceOf(InProgress.class);
	}

	@Test
	void fullStoreEvictsCompletedRecordClosestToExpiry() {
		InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(3, this.clock);
		RecordKey soon = completed(store, Duration.ofMinutes(10));
		RecordKey later = completed(store, Duration.ofMinutes(30));
		RecordKey live = newKey();
		store.acquire(live, request("a"));
		RecordKey next = newKey();
		assertThat(store.acquire(next, request("a"))).isEqualTo(new Acquired(1, false));
		assertThat(store.read(soon)).isEmpty();
		assertThat(store.read(later)).isPresent();
		assertThat(store.read(live)).isPresent();
	}

	@Test
	void fullStorePurgesExpiredRecordsBeforeEvicting() {
		InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(3, this.clock);
		RecordKey expiring = completed(store, Duration.ofMinutes(20));
		RecordKey soon = completed(store, Duration.ofMinutes(30));
		RecordKey later = completed(store, Duration.ofMinutes(40));
		this.clock.advance(Duration.ofMinutes(25));
		store.acquire(newKey(), request("a"));
		assertThat(store.read(expiring)).isEmpty();
		assertThat(store.read(soon)).isPresent();
		assertThat(store.read(later)).isPresent();
	}

	@Test
	void fullStoreEvictsAttemptWhoseLeaseRanOutButNeverALiveOne() {
		InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(2, this.clock);
		RecordKey abandoned = newKey();
		store.acquire(abandoned, new AcquireRequest("a", Duration.ofSeconds(1), Duration.ofHours(1), null));
		RecordKey live = newKey();
		store.acquire(live, request("a"));
		this.clock.advance(Duration.ofSeconds(1));
		store.acquire(newKey(), request("a"));
		assertThat(store.read(abandoned)).isEmpty();
		assertThat(store.read(live)).isPresent();
	}

	@Test
	void existingKeysStayUsableWhenFull() {
		InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(1, this.clock);
		RecordKey key = newKey();
		store.acquire(key, request("a"));
		assertThat(store.complete(key, "a", 1, StoredResult.of(new byte[] { 7 }), Duration.ofHours(1))).isTrue();
		assertThat(store.acquire(key, request("b"))).isInstanceOf(Completed.class);
	}

	@Test
	void storedBytesAreNotSharedWithCallers() {
		RecordKey key = newKey();
		byte[] body = { 1, 2, 3 };
		this.store.acquire(key, request("a"));
		this.store.complete(key, "a", 1, StoredResult.of(body), LEASE);
		body[0] = 9;
		((Completed) this.store.acquire(key, request("b"))).result().body()[1] = 9;
		assertThat(((Completed) this.store.acquire(key, request("b"))).result().body()).containsExactly(1, 2, 3);
	}

	private static RecordKey newKey() {
		return new RecordKey("memory", UUID.randomUUID().toString());
	}

	private static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, LEASE, Duration.ofMinutes(10), null);
	}

	private RecordKey completed(InMemoryIdempotencyStore store, Duration retention) {
		RecordKey key = newKey();
		store.acquire(key, new AcquireRequest("a", LEASE, retention, null));
		store.complete(key, "a", 1, StoredResult.of(new byte[0]), retention);
		return key;
	}

	static final class MutableClock extends Clock {

		private Instant instant = Instant.parse("2030-01-01T00:00:00Z");

		void advance(Duration duration) {
			this.instant = this.instant.plus(duration);
		}

		@Override
		public Instant instant() {
			return this.instant;
		}

		@Override
		public ZoneOffset getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(java.time.ZoneId zone) {
			throw new UnsupportedOperationException();
		}

	}

}
