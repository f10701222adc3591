package dev.idempotency.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import com.sun.management.OperatingSystemMXBean;

import dev.idempotency.BatchOutcome;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.benchmarks.LoadRun.IdSource;
import dev.idempotency.benchmarks.LoadRun.Sample;

/**
 * Measures {@link IdempotentExecutor#executeAll} with batches of {@value #BATCH} new keys
 * against the per-call floor on raw Lettuce ({@link LettuceFloor}, two round trips per
 * record), in records per second and CPU per record, at 1, 8 and 32 caller threads, the
 * two sides taking turns slice by slice as in the rest of the harness.
 */
final class BatchComparison {

	/**
	 * Records per batch.
	 */
	static final int BATCH = 100;

	/**
	 * What the batch must reach: this many times the floor's records per second.
	 */
	static final double TARGET_RATIO = 5;

	static final List<Integer> THREADS = List.of(1, 8, 32);

	/**
	 * Name of the batch operation, part of its Redis keys.
	 */
	static final String OPERATION = "bench.charge-batch";

	private static final int SLICES = 6;

	private static final OperatingSystemMXBean PROCESS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private final IdempotentExecutor executor;

	private final Contender floor;

	private final IntSupplier runs;

	private final LongSupplier redisCpuNanos;

	BatchComparison(IdempotentExecutor executor, Contender floor, IntSupplier runs, LongSupplier redisCpuNanos) {
		this.executor = executor;
		this.floor = floor;
		this.runs = runs;
		this.redisCpuNanos = redisCpuNanos;
	}

	List<Row> measure(HarnessOptions options, Runnable beforeRepetition) {
		check();
		measureBatches(8, options.warmup());
		measureFloor(8, options.warmup());
		List<Row> rows = new ArrayList<>();
		Duration slice = options.measurement().dividedBy(SLICES);
		for (int threads : THREADS) {
			int repetitions = options.repetitions();
			double[] batches = new double[repetitions];
			double[] floors = new double[repetitions];
			Sample batchSum = null;
			Sample floorSum = null;
			for (int repetition = 0; repetition < repetitions; repetition++) {
				beforeRepetition.run();
				Sample batch = null;
				Sample perCall = null;
				for (int i = 0; i < SLICES; i++) {
					boolean batchFirst = (repetition + i) % 2 == 0;
					if (batchFirst) {
						batch = plus(batch, measureBatches(threads, slice));
					}
					perCall = plus(perCall, measureFloor(threads, slice));
					if (!batchFirst) {
						batch = plus(batch, measureBatches(threads, slice));
					}
				}
				batches[repetition] = batch.throughput() * BATCH;
				floors[repetition] = perCall.throughput();
				batchSum = plus(batchSum, batch);
				floorSum = plus(floorSum, perCall);
				log("%2d threads, rep %d/%d, executeAll of %d %,10.0f records/s (CPU/record JVM %.1f µs, Redis %.1f), "
						+ "lettuce per call %,9.0f records/s (JVM %.1f, Redis %.1f)", threads, repetition + 1,
						repetitions, BATCH, batches[repetition], batch.jvmCpuMicrosPerCall() / BATCH,
						batch.redisCpuMicrosPerCall() / BATCH, floors[repetition], perCall.jvmCpuMicrosPerCall(),
						perCall.redisCpuMicrosPerCall());
			}
			rows.add(new Row(threads, batches, floors,
					new double[] { batchSum.jvmCpuMicrosPerCall() / BATCH, batchSum.redisCpuMicrosPerCall() / BATCH,
							floorSum.jvmCpuMicrosPerCall(), floorSum.redisCpuMicrosPerCall() }));
		}
		return rows;
	}

	private Sample measureBatches(int threads, Duration duration) {
		int run = this.runs.getAsInt();
		// The last two hex digits of each id number the records of its batch
		IdSource ids = (thread, sequence) -> Ids.unique(run, thread, sequence << 8);
		return withCpu(() -> LoadRun.run(this::batch, ids, threads, duration));
	}

	private Sample measureFloor(int threads, Duration duration) {
		int run = this.runs.getAsInt();
		return withCpu(() -> LoadRun.run(this.floor::call, (thread, sequence) -> Ids.unique(run, thread, sequence),
				threads, duration));
	}

	// The CPU the JVM and the Redis server spent while the sample ran
	private Sample withCpu(Supplier<Sample> run) {
		long jvmCpu = PROCESS.getProcessCpuTime();
		long redisCpu = this.redisCpuNanos.getAsLong();
		Sample sample = run.get();
		return sample.withCpu(PROCESS.getProcessCpuTime() - jvmCpu, this.redisCpuNanos.getAsLong() - redisCpu);
	}

	private void batch(String id) {
		String prefix = id.substring(0, id.length() - 2);
		List<String> keys = new ArrayList<>(BATCH);
		for (int i = 0; i < BATCH; i++) {
			keys.add(prefix + String.format(Locale.ROOT, "%02x", i));
		}
		List<BatchOutcome<String, Receipt>> outcomes = this.executor.executeAll(OPERATION, keys, (key) -> key,
				Receipt.class, Receipt::settled);
		for (BatchOutcome<String, Receipt> outcome : outcomes) {
			if (!(outcome instanceof BatchOutcome.Executed)) {
				throw new IllegalStateException("A record of a batch of new keys was not executed: " + outcome);
			}
		}
	}

	// A batch does what it promises, once: a second batch of the same keys replays
	private void check() {
		int run = this.runs.getAsInt();
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < BATCH; i++) {
			keys.add(Ids.unique(run, 0, i));
		}
		this.executor.executeAll(OPERATION, keys, (key) -> key, Receipt.class, Receipt::settled);
		List<BatchOutcome<String, Receipt>> again = this.executor.executeAll(OPERATION, keys, (key) -> key,
				Receipt.class, (key) -> {
					throw new IllegalStateException("A replayed batch ran its work");
				});
		for (BatchOutcome<String, Receipt> outcome : again) {
			if (!(outcome instanceof BatchOutcome.Replayed<String, Receipt> replayed)
					|| !Receipt.settled(outcome.key()).equals(replayed.result())) {
				throw new IllegalStateException("A second batch of the same keys did not replay: " + outcome);
			}
		}
		log("checked executeAll");
	}

	private static Sample plus(Sample sum, Sample sample) {
		return (sum != null) ? sum.plus(sample) : sample;
	}

	private static void log(String format, Object... args) {
		System.err.println("[harness] " + String.format(Locale.ROOT, format, args));
	}

	/**
	 * Records per second of each repetition, at one thread count.
	 *
	 * @param threads the caller threads
	 * @param batches records per second through {@code executeAll}
	 * @param floors records per second of the per-call floor
	 * @param cpu CPU per record over every repetition, µs: executeAll's JVM and Redis,
	 * then the floor's JVM and Redis
	 */
	record Row(int threads, double[] batches, double[] floors, double[] cpu) {

		double batchRate() {
			return median(this.batches);
		}

		double floorRate() {
			return median(this.floors);
		}

		double[] ratios() {
			double[] ratios = new double[this.batches.length];
			for (int i = 0; i < ratios.length; i++) {
				ratios[i] = this.batches[i] / this.floors[i];
			}
			Arrays.sort(ratios);
			return ratios;
		}

		double ratio() {
			return median(ratios());
		}

		boolean meetsTarget() {
			return ratio() >= TARGET_RATIO;
		}

		private static double median(double[] values) {
			double[] sorted = values.clone();
			Arrays.sort(sorted);
			int middle = sorted.length / 2;
			return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
		}

	}

	/**
	 * Write the rows as a Markdown section.
	 * @param rows the rows
	 * @return the section
	 */
	static String markdown(List<Row> rows) {
		StringBuilder md = new StringBuilder();
		md.append("## Batches: executeAll against the per-call floor\n\n");
		md.append("`IdempotentExecutor.executeAll` with batches of ")
			.append(BATCH)
			.append(" new keys (one `EVALSHA` of `acquire-all.lua` for the batch, the work for each "
					+ "record, one `EVALSHA` of `complete-all.lua`), against the **lettuce** floor doing "
					+ "the per-call protocol for each record (2 round trips per record), in records per second; "
					+ "the two take turns slice by slice. Ratio: the median of the repetitions' ratios, their range "
					+ "in brackets. Target: ≥ ")
			.append(String.format(Locale.ROOT, "%.0f", TARGET_RATIO))
			.append("× the floor. CPU per record, in µs over every repetition, of the whole JVM and of the Redis "
					+ "server, executeAll / the floor: on two CPUs, what the two sum to bounds the records per "
					+ "second once the callers no longer wait.\n\n");
		md.append("| threads | executeAll records/s | lettuce per call records/s | executeAll/lettuce | target "
				+ "| CPU/record JVM | CPU/record Redis |\n");
		md.append("|---:|---:|---:|---:|---|---:|---:|\n");
		for (Row row : rows) {
			double[] ratios = row.ratios();
			double[] cpu = row.cpu();
			md.append(String.format(Locale.ROOT,
					"| %d | %,.0f | %,.0f | %.2f (%.2f–%.2f) | %s | %.1f / %.1f | " + "%.1f / %.1f |%n", row.threads(),
					row.batchRate(), row.floorRate(), row.ratio(), ratios[0], ratios[ratios.length - 1],
					row.meetsTarget() ? "met" : "**missed**", cpu[0], cpu[2], cpu[1], cpu[3]));
		}
		md.append('\n');
		return md.toString();
	}

}
