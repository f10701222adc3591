package dev.idempotency.store.dynamodb;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.RecordKey;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leases and expiry judged on the callers' clocks: a caller whose clock runs ahead by
 * less than the allowance never takes over a live lease, one ahead by more can (the
 * weaker guarantee the store documents), and an item past its expiry is absent.
 */
class DynamoDbClockSkewTests {

	private static final Duration SKEW = Duration.ofSeconds(1);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	private final DynamoDbIdempotencyStore holder = store(Duration.ZERO);

	private final RecordKey key = new RecordKey("skew", UUID.randomUUID().toString());

	@Test
	void callerAheadByLessThanTheAllowanceTakesOverOnlyAfterTheLeaseEnded() {
		this.holder.acquire(this.key, new AcquireRequest("holder", Duration.ofMillis(500), RETENTION, null));
		Instant leaseEnd = this.holder.read(this.key).orElseThrow().leaseExpiresAt();
		DynamoDbIdempotencyStore ahead = store(Duration.ofMillis(800));
		assertThat(ahead.acquire(this.key, request("ahead"))).isInstanceOf(InProgress.class);
		AcquireResult takeover = Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> ahead.acquire(this.key, request("ahead")), Acquired.class::isInstance);
		assertThat(Instant.now()).isAfterOrEqualTo(leaseEnd);
		assertThat(takeover).isEqualTo(new Acquired(2, true));
	}

	@Test
	void callerOnTheSameClockWaitsTheAllowancePastTheLease() {
		this.holder.acquire(this.key, new AcquireRequest("holder", Duration.ofMillis(100), RETENTION, null));
		Instant leaseEnd = this.holder.read(this.key).orElseThrow().leaseExpiresAt();
		DynamoDbIdempotencyStore caller = store(Duration.ZERO);
		Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(leaseEnd));
		AcquireResult takeover = Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> caller.acquire(this.key, request("caller")), Acquired.class::isInstance);
		assertThat(Instant.now()).isAfterOrEqualTo(leaseEnd.plus(SKEW));
		assertThat(takeover).isEqualTo(new Acquired(2, true));
	}

	@Test
	void callerAheadByMoreThanTheAllowanceCanTakeOverALiveLease() {
		this.holder.acquire(this.key, new AcquireRequest("holder", Duration.ofSeconds(5), RETENTION, null));
		Instant leaseEnd = this.holder.read(this.key).orElseThrow().leaseExpiresAt();
		DynamoDbIdempotencyStore farAhead = store(Duration.ofSeconds(7));
		assertThat(farAhead.acquire(this.key, request("far-ahead"))).isEqualTo(new Acquired(2, true));
		assertThat(Instant.now()).isBefore(leaseEnd);
		assertThat(this.holder.renew(this.key, "holder", 1, Duration.ofSeconds(5), RETENTION)).isFalse();
	}

	@Test
	void itemPastItsExpiryIsAbsentAndItsFencesStartAgain() {
		this.holder.acquire(this.key, new AcquireRequest("holder", Duration.ofSeconds(1), Duration.ofSeconds(1), null));
		this.holder.release(this.key, "holder", 1, Duration.ofSeconds(1));
		DynamoDbIdempotencyStore later = store(Duration.ofMinutes(1));
		assertThat(later.read(this.key)).isEmpty();
		assertThat(this.holder.read(this.key)).isPresent();
		assertThat(later.acquire(this.key, request("later"))).isEqualTo(new Acquired(1, false));
		assertThat(later.evict(this.key)).isTrue();
	}

	private static DynamoDbIdempotencyStore store(Duration ahead) {
		return new DynamoDbIdempotencyStore(DynamoDbTestTables.client(), DynamoDbTestTables.table(), SKEW,
				Clock.offset(Clock.systemUTC(), ahead));
	}

	private static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, Duration.ofSeconds(30), RETENTION, null);
	}

}
