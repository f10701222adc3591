package dev.idempotency.store.dynamodb;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.RecordKey;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 32 threads racing for one key, round after round: exactly one wins a new key, and
 * exactly one takes over an expired attempt, however the conditional writes interleave.
 */
class DynamoDbAcquireRaceTests {

	private static final int THREADS = 32;

	private static final int ROUNDS = 20;

	private static final ExecutorService executor = Executors.newFixedThreadPool(THREADS);

	private final DynamoDbIdempotencyStore store = new DynamoDbIdempotencyStore(DynamoDbTestTables.client(),
			DynamoDbTestTables.table(), Duration.ofMillis(50));

	@AfterAll
	static void stopThreads() {
		executor.shutdownNow();
	}

	@Test
	void exactlyOneOf32ThreadsAcquiresANewKeyInEachRound() throws Exception {
		for (int round = 0; round < ROUNDS; round++) {
			RecordKey key = new RecordKey("race", UUID.randomUUID().toString());
			List<AcquireResult> results = race(key, Duration.ofSeconds(30));
			assertThat(results).filteredOn(Acquired.class::isInstance).containsExactly(new Acquired(1, false));
			assertThat(results).filteredOn(InProgress.class::isInstance).hasSize(THREADS - 1);
		}
	}

	@Test
	void exactlyOneOf32ThreadsTakesOverAnExpiredAttemptInEachRound() throws Exception {
		for (int round = 0; round < ROUNDS / 2; round++) {
			RecordKey key = new RecordKey("race", UUID.randomUUID().toString());
			this.store.acquire(key, new AcquireRequest("first", Duration.ofMillis(1), Duration.ofMinutes(1), null));
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(10))
				.until(() -> this.store.read(key)
					.orElseThrow()
					.leaseExpiresAt()
					.plusMillis(60)
					.isBefore(java.time.Instant.now()));
			List<AcquireResult> results = race(key, Duration.ofSeconds(30));
			assertThat(results).filteredOn(Acquired.class::isInstance).containsExactly(new Acquired(2, true));
			assertThat(results).filteredOn(InProgress.class::isInstance)
				.hasSize(THREADS - 1)
				.allSatisfy((result) -> assertThat(((InProgress) result).fence()).isEqualTo(2));
		}
	}

	private List<AcquireResult> race(RecordKey key, Duration lease) throws Exception {
		CountDownLatch ready = new CountDownLatch(THREADS);
		CountDownLatch start = new CountDownLatch(1);
		List<Future<AcquireResult>> futures = new ArrayList<>();
		for (int i = 0; i < THREADS; i++) {
			AcquireRequest request = new AcquireRequest("owner-" + i, lease, Duration.ofMinutes(1), null);
			futures.add(executor.submit(() -> {
				ready.countDown();
				start.await();
				return this.store.acquire(key, request);
			}));
		}
		assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
		start.countDown();
		List<AcquireResult> results = new ArrayList<>();
		for (Future<AcquireResult> future : futures) {
			results.add(future.get(30, TimeUnit.SECONDS));
		}
		return results;
	}

}
