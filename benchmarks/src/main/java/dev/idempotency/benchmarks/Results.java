package dev.idempotency.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

import dev.idempotency.benchmarks.LoadRun.Sample;
import dev.idempotency.benchmarks.Side.Kind;

/**
 * The measured repetitions of every case, and what they add up to. Ratios are
 * starter/other side, each the median of the ratios of repetitions run side by side, so
 * that noise from the rest of the machine cancels: a burst of other work spoils one
 * repetition, not the result.
 */
final class Results {

	/**
	 * Lowest starter/floor throughput ratio allowed, against either floor.
	 */
	static final double MIN_THROUGHPUT_RATIO = 0.85;

	/**
	 * Highest starter/floor p99 latency ratio allowed, against either floor.
	 */
	static final double MAX_P99_RATIO = 1.25;

	private final Map<Integer, Map<Workload, Map<Side, List<Sample>>>> samples = new TreeMap<>();

	void add(int threads, Workload workload, Side side, Sample sample) {
		this.samples.computeIfAbsent(threads, (t) -> new EnumMap<>(Workload.class))
			.computeIfAbsent(workload, (w) -> new EnumMap<>(Side.class))
			.computeIfAbsent(side, (s) -> new ArrayList<>())
			.add(sample);
	}

	List<Row> rows() {
		List<Row> rows = new ArrayList<>();
		this.samples.forEach((threads, workloads) -> workloads.forEach((workload, sides) -> {
			Map<Side, Summary> summaries = new EnumMap<>(Side.class);
			sides.forEach((side, repetitions) -> summaries.put(side, Summary.of(repetitions)));
			Map<Side, Comparison> comparisons = new EnumMap<>(Side.class);
			List<Sample> starter = sides.getOrDefault(Side.STARTER, List.of());
			sides.forEach((side, other) -> {
				if (side != Side.STARTER && !starter.isEmpty() && starter.size() == other.size()) {
					comparisons.put(side, new Comparison(side, pairedRatios(starter, other, Sample::throughput),
							pairedRatios(starter, other, Results::p99)));
				}
			});
			rows.add(new Row(threads, workload, summaries, comparisons));
		}));
		return rows;
	}

	private static double[] pairedRatios(List<Sample> starter, List<Sample> other, ToDoubleFunction<Sample> measure) {
		double[] ratios = new double[starter.size()];
		for (int i = 0; i < ratios.length; i++) {
			ratios[i] = measure.applyAsDouble(starter.get(i)) / measure.applyAsDouble(other.get(i));
		}
		Arrays.sort(ratios);
		return ratios;
	}

	private static double p99(Sample sample) {
		return sample.latency().getValueAtPercentile(99);
	}

	static double median(double[] sorted) {
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	/**
	 * Every side measured for one workload at one thread count, and the starter against
	 * each of the others.
	 *
	 * @param threads caller threads
	 * @param workload the workload
	 * @param summaries the repetitions of each side
	 * @param comparisons the starter against each other side, when the starter ran
	 */
	record Row(int threads, Workload workload, Map<Side, Summary> summaries, Map<Side, Comparison> comparisons) {

	}

	/**
	 * The starter against one other side, repetition by repetition.
	 *
	 * @param side the other side
	 * @param throughputRatios starter/side throughput of each pair of repetitions, sorted
	 * @param p99Ratios starter/side p99 latency of each pair of repetitions, sorted
	 */
	record Comparison(Side side, double[] throughputRatios, double[] p99Ratios) {

		double throughputRatio() {
			return median(this.throughputRatios);
		}

		double p99Ratio() {
			return median(this.p99Ratios);
		}

		/**
		 * Whether the starter meets its target against this side: close enough to a
		 * floor, ahead of a peer.
		 * @return whether the target is met
		 */
		boolean meetsTarget() {
			return switch (this.side.kind()) {
				case FLOOR -> throughputRatio() >= MIN_THROUGHPUT_RATIO && p99Ratio() <= MAX_P99_RATIO;
				case PEER -> throughputRatio() > 1;
				case STARTER, VARIANT -> true;
			};
		}

		static String target(Kind kind) {
			return switch (kind) {
				case FLOOR -> "calls/s ≥ " + MIN_THROUGHPUT_RATIO + ", p99 ≤ " + MAX_P99_RATIO;
				case PEER -> "starter leads: calls/s > 1";
				case VARIANT -> "no target: the ratio is what the setting costs";
				case STARTER -> "";
			};
		}

	}

	/**
	 * The repetitions of one case.
	 *
	 * @param throughputs calls per second of each repetition, sorted
	 * @param total every repetition added up
	 */
	record Summary(double[] throughputs, Sample total) {

		static Summary of(List<Sample> samples) {
			double[] throughputs = samples.stream().mapToDouble(Sample::throughput).sorted().toArray();
			return new Summary(throughputs, samples.stream().reduce(Sample::plus).orElseThrow());
		}

		double throughput() {
			return median(this.throughputs);
		}

		double p50() {
			return this.total.latency().getValueAtPercentile(50);
		}

		double p99() {
			return this.total.latency().getValueAtPercentile(99);
		}

		double p999() {
			return this.total.latency().getValueAtPercentile(99.9);
		}

		double callerCpuMicrosPerCall() {
			return this.total.callerCpuMicrosPerCall();
		}

		double jvmCpuMicrosPerCall() {
			return this.total.jvmCpuMicrosPerCall();
		}

		double redisCpuMicrosPerCall() {
			return this.total.redisCpuMicrosPerCall();
		}

	}

}
