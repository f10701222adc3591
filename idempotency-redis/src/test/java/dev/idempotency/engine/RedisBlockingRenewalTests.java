package dev.idempotency.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A store whose renewals block the thread that sends them (the interface's default
 * {@code renewAsync}, an application's wrapper over a blocking client) and hang for some
 * records, such as those on an unreachable shard: every other attempt's lease is still
 * renewed in Redis, however many renewals hang.
 */
class RedisBlockingRenewalTests {

	private static final Duration LEASE = Duration.ofMillis(600);

	// More than a handful: the renewals of records on a dead shard
	private static final int STUCK = 8;

	private final CountDownLatch unblocked = new CountDownLatch(1);

	private final AtomicInteger blocked = new AtomicInteger();

	private final ForwardingStore store = new ForwardingStore(
			new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency-blocking-renewals:")) {

		@Override
		public CompletionStage<Boolean> renewAsync(RecordKey key, String owner, long fence, Duration lease,
				Duration retention) {
			if (key.key().startsWith("stuck-")) {
				RedisBlockingRenewalTests.this.blocked.incrementAndGet();
				try {
					RedisBlockingRenewalTests.this.unblocked.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return super.renewAsync(key, owner, fence, lease, retention);
		}

	};

	private final IdempotencyEngine engine = new IdempotencyEngine(this.store, IdempotencyDefaults.STANDARD, List.of());

	private final CompletableFuture<Object> stuckWork = new CompletableFuture<>();

	@AfterEach
	void close() {
		this.unblocked.countDown();
		this.stuckWork.complete("done");
		this.engine.close();
	}

	@Test
	void renewalsThatHangOnTheirSendingThreadsDelayNoOtherLease() throws Throwable {
		Operation operation = operation(OnInProgress.REJECT);
		List<CompletableFuture<@Nullable Object>> stuck = new ArrayList<>();
		for (int i = 0; i < STUCK; i++) {
			stuck.add(this.engine.executeAsync(operation, "stuck-" + i, null, () -> this.stuckWork));
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> this.blocked.get() >= 4);
		AtomicInteger effects = new AtomicInteger();
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch duplicateRan = new CountDownLatch(1);
		// Outlasts its lease: only renewals keep the duplicate, which waits, from taking
		// the record over while it runs
		CompletableFuture<@Nullable Object> first = CompletableFuture.supplyAsync(() -> {
			try {
				return this.engine.execute(operation, "healthy", null, () -> {
					effects.incrementAndGet();
					started.countDown();
					duplicateRan.await(2, TimeUnit.SECONDS);
					return "first";
				});
			}
			catch (Throwable ex) {
				return ex;
			}
		});
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
		Object duplicate = this.engine.execute(operation(OnInProgress.WAIT), "healthy", null, () -> {
			effects.incrementAndGet();
			duplicateRan.countDown();
			return "duplicate";
		});
		assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
		assertThat(duplicate).isEqualTo("first");
		assertThat(effects).hasValue(1);
	}

	private final String name = "blocking-renewals-" + UUID.randomUUID();

	private Operation operation(OnInProgress onInProgress) {
		return new Operation(this.name,
				new OperationSettings(LEASE, Duration.ofHours(1), onInProgress, Duration.ofSeconds(5)),
				new JacksonResultCodec(JsonMapper.builder().build()).forType(ResolvableType.forClass(String.class)),
				"the test's key");
	}

}
