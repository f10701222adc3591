package dev.idempotency.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.engine.IdempotencyListener;
import dev.idempotency.engine.Outcome;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.RedisCluster;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * An application whose Redis is configured only as a cluster
 * ({@code spring.data.redis.cluster.nodes}), on the shared three-primary cluster: 32
 * threads deliver every key several times at once.
 */
class RedisClusterIdempotentRaceTests {

	private static final int THREADS = 32;

	private static final int KEYS = 240;

	private static final int DELIVERIES = 4;

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				JacksonAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.cluster.nodes=" + TestRedis.cluster().nodeAddresses(),
				"spring.data.redis.lettuce.cluster.refresh.adaptive=true",
				"spring.data.redis.lettuce.cluster.refresh.period=1s")
		.withBean(Ledger.class)
		.withBean(OutcomeCounter.class);

	@Test
	void concurrentDeliveriesOfKeysOnEveryPrimaryRunOnceAndAllGetTheOneResult() {
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(IdempotencyStore.class)).isInstanceOf(RedisIdempotencyStore.class)
				.hasToString("Redis store at cluster nodes " + TestRedis.cluster().nodeAddresses().replace(",", ", ")
						+ " (key prefix 'idempotency:')");
			Ledger ledger = context.getBean(Ledger.class);
			List<String> keys = new ArrayList<>();
			for (int i = 0; i < KEYS; i++) {
				keys.add("order-" + UUID.randomUUID());
			}
			Map<String, Set<String>> results = deliverConcurrently(ledger, keys);
			for (String key : keys) {
				assertThat(ledger.effects(key)).as("effects of %s", key).isEqualTo(1);
				assertThat(results.get(key)).as("results of %s", key).containsExactly(ledger.result(key));
			}
			assertThat(context.getBean(OutcomeCounter.class).counts).containsOnly(entry(Outcome.EXECUTED, KEYS),
					entry(Outcome.REPLAYED, KEYS * (DELIVERIES - 1)));
			assertThat(completedOnTheirPrimaries(keys))
				.containsExactlyInAnyOrderElementsOf(TestRedis.cluster().primaries());
		});
	}

	private static Map<String, Set<String>> deliverConcurrently(Ledger ledger, List<String> keys) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<String[]>> deliveries = new ArrayList<>();
			for (String key : keys) {
				// The deliveries of one key are queued together and start together
				CountDownLatch together = new CountDownLatch(DELIVERIES);
				for (int i = 0; i < DELIVERIES; i++) {
					deliveries.add(executor.submit(() -> {
						together.countDown();
						together.await(DEADLINE.toSeconds(), TimeUnit.SECONDS);
						return new String[] { key, ledger.charge(key) };
					}));
				}
			}
			Map<String, Set<String>> results = new HashMap<>();
			for (Future<String[]> delivery : deliveries) {
				String[] result = delivery.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
				results.computeIfAbsent(result[0], (key) -> ConcurrentHashMap.newKeySet()).add(result[1]);
			}
			return results;
		}
		finally {
			executor.shutdownNow();
		}
	}

	// Each record is read on the primary that serves its slot, on a connection to that
	// node alone: a node answers MOVED for a key of another node's slot.
	private static Set<RedisServer> completedOnTheirPrimaries(List<String> keys) {
		RedisCluster cluster = TestRedis.cluster();
		Map<RedisServer, LettuceConnectionFactory> factories = new HashMap<>();
		try {
			Map<RedisServer, List<String>> keysByPrimary = keys.stream()
				.collect(Collectors.groupingBy((key) -> cluster
					.primaryOf(("idempotency:" + Ledger.NAME + ":" + key).getBytes(StandardCharsets.UTF_8))));
			keysByPrimary.forEach((primary, primaryKeys) -> {
				LettuceConnectionFactory factory = TestRedis.connectionFactory(primary.host(), primary.port());
				factories.put(primary, factory);
				RedisIdempotencyStore node = new RedisIdempotencyStore(factory, "idempotency:");
				for (String key : primaryKeys) {
					assertThat(node.read(new RecordKey(Ledger.NAME, key))).as("%s on %s", key, primary)
						.hasValueSatisfying((record) -> assertThat(record.state()).isEqualTo(RecordState.COMPLETED));
				}
			});
			return keysByPrimary.keySet();
		}
		finally {
			factories.values().forEach(LettuceConnectionFactory::destroy);
		}
	}

	static class OutcomeCounter implements IdempotencyListener {

		final Map<Outcome, Integer> counts = new ConcurrentHashMap<>();

		@Override
		public void onOutcome(String name, Outcome outcome) {
			this.counts.merge(outcome, 1, Integer::sum);
		}

	}

	static class Ledger {

		static final String NAME = "cluster-race";

		private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

		private final Map<String, String> results = new ConcurrentHashMap<>();

		@Idempotent(name = NAME, key = "#orderId", onInProgress = OnInProgress.WAIT)
		public String charge(String orderId) {
			this.effects.computeIfAbsent(orderId, (key) -> new AtomicInteger()).incrementAndGet();
			String receipt = "receipt-" + UUID.randomUUID();
			this.results.put(orderId, receipt);
			return receipt;
		}

		int effects(String orderId) {
			AtomicInteger count = this.effects.get(orderId);
			return (count != null) ? count.get() : 0;
		}

		String result(String orderId) {
			return this.results.get(orderId);
		}

	}

}
