package dev.idempotency.test.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.InProgress;
import org.junit.jupiter.api.Test;

import static dev.idempotency.test.store.ContractFixtures.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract of many threads racing to acquire one key: exactly one wins.
 */
interface ConcurrencyContract extends StoreContract {

	@Test
	default void concurrentAcquiresHaveExactlyOneWinner() throws Exception {
		int threads = 32;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch ready = new CountDownLatch(threads);
			CountDownLatch start = new CountDownLatch(1);
			List<Future<AcquireResult>> futures = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				String owner = "owner-" + i;
				futures.add(executor.submit(() -> {
					ready.countDown();
					start.await();
					return store().acquire(key(), request(owner));
				}));
			}
			assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
			start.countDown();
			List<AcquireResult> results = new ArrayList<>();
			for (Future<AcquireResult> future : futures) {
				results.add(future.get(10, TimeUnit.SECONDS));
			}
			assertThat(results).filteredOn(Acquired.class::isInstance).containsExactly(new Acquired(1, false));
			assertThat(results).filteredOn(InProgress.class::isInstance)
				.hasSize(threads - 1)
				.allSatisfy((result) -> assertThat(((InProgress) result).fence()).isEqualTo(1));
		}
		finally {
			executor.shutdownNow();
		}
	}

}
