package dev.idempotency.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import dev.idempotency.codec.ResultCodec;
import dev.idempotency.codec.ResultCodec.TypedCodec;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;

/**
 * What the starter costs in the JVM, without any network: the {@code @Idempotent} method
 * of {@link Payments} called through its proxy in a Boot application on the in-memory
 * store, for a new key and for a replay, next to the bare method and to the result codec
 * alone.
 * <p>
 * Run from the project root with
 * {@code ./mvnw -q -Pbenchmarks -pl benchmarks test-compile exec:exec@jmh}; JMH options
 * go in {@code -Djmh.args="..."}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class InJvmOverheadBenchmark {

	private static final int REPLAY_KEYS = 1024;

	private final Payments bare = new Payments();

	private final String[] replayIds = Ids.replays(REPLAY_KEYS);

	private final AtomicLong sequence = new AtomicLong();

	private long evicted;

	private ConfigurableApplicationContext application;

	private Payments payments;

	private IdempotencyStore store;

	private TypedCodec codec;

	private Receipt receipt;

	private byte[] body;

	@Setup(Level.Trial)
	public void startApplication() {
		// Large enough that no iteration makes the store evict: keys are evicted after
		// each.
		this.application = BenchmarkApplication.inMemory(10_000_000);
		this.payments = this.application.getBean(Payments.class);
		this.store = this.application.getBean(IdempotencyStore.class);
		this.codec = this.application.getBean(ResultCodec.class).forType(ResolvableType.forClass(Receipt.class));
		this.receipt = Receipt.settled(this.replayIds[0]);
		this.body = this.codec.encode(this.receipt);
		for (String id : this.replayIds) {
			this.payments.charge(id);
		}
	}

	@TearDown(Level.Iteration)
	public void evictNewKeys() {
		long end = this.sequence.get();
		for (long i = this.evicted; i < end; i++) {
			this.store.evict(new RecordKey(Payments.OPERATION, Ids.unique(0, 0, i)));
		}
		this.evicted = end;
	}

	@TearDown(Level.Trial)
	public void closeApplication() {
		this.application.close();
	}

	@Benchmark
	public Receipt newKey() {
		return this.payments.charge(Ids.unique(0, 0, this.sequence.getAndIncrement()));
	}

	@Benchmark
	public Receipt replay(Cursor cursor) {
		return this.payments.charge(this.replayIds[cursor.next()]);
	}

	@Benchmark
	public Receipt bareMethod() {
		return this.bare.charge(Ids.unique(0, 0, this.sequence.getAndIncrement()));
	}

	@Benchmark
	public byte[] encodeResult() {
		return this.codec.encode(this.receipt);
	}

	@Benchmark
	public Object decodeResult() {
		return this.codec.decode(this.body);
	}

	/**
	 * Each thread's position in the replayed keys.
	 */
	@State(Scope.Thread)
	public static class Cursor {

		private int position;

		int next() {
			this.position = (this.position + 1) % REPLAY_KEYS;
			return this.position;
		}

	}

}
