package dev.idempotency.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import dev.idempotency.store.redis.RedisIdempotencyStore;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One replay round trip ({@code EVALSHA acquire.lua} of a completed record) through the
 * Redis store, next to the same round trip through {@code RedisTemplate} as the
 * {@link Floor} does it and on raw Lettuce as the {@link LettuceFloor} does it, on a
 * {@code redis-server} of the benchmark's own: what the store's client path costs beyond
 * the script. Compare the allocation per operation ({@code -prof gc}) as well as the
 * time, which is mostly the round trip.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RedisRoundTripBenchmark {

	private static final String PREFIX = "idempotency:";

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofHours(24);

	private static final byte[] BODY = new byte[200];

	private final RecordKey key = new RecordKey(Payments.OPERATION, Ids.replays(1)[0]);

	private final AcquireRequest request = new AcquireRequest("owner-of-replays", LEASE, RETENTION, null);

	private RedisServer redis;

	private LettuceConnectionFactory connectionFactory;

	private RedisIdempotencyStore store;

	private Floor floor;

	private LettuceFloor lettuce;

	@Setup(Level.Trial)
	public void startRedis() {
		this.redis = RedisServer.start();
		this.connectionFactory = new LettuceConnectionFactory(RedisServer.HOST, this.redis.port());
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.store = new RedisIdempotencyStore(this.connectionFactory, PREFIX);
		this.floor = new Floor(this.connectionFactory, PREFIX + Payments.OPERATION + ":", LEASE.toMillis(),
				RETENTION.toMillis(), BODY);
		this.lettuce = new LettuceFloor(RedisServer.HOST, this.redis.port(), PREFIX + Payments.OPERATION + ":",
				LEASE.toMillis(), RETENTION.toMillis(), BODY, Side.LETTUCE);
		AcquireResult acquired = this.store.acquire(this.key, this.request);
		this.store.complete(this.key, this.request.owner(), ((AcquireResult.Acquired) acquired).fence(),
				StoredResult.of(BODY), RETENTION);
	}

	@TearDown(Level.Trial)
	public void stopRedis() {
		this.lettuce.close();
		this.connectionFactory.destroy();
		this.redis.close();
	}

	@Benchmark
	public AcquireResult store() {
		return this.store.acquire(this.key, this.request);
	}

	@Benchmark
	public byte[] template() {
		return this.floor.call(this.key.key());
	}

	@Benchmark
	public byte[] lettuce() {
		return this.lettuce.call(this.key.key());
	}

}
