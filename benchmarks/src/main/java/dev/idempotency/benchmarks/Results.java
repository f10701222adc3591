package dev.idempotency.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

import dev.idempotency.benchmarks.LoadRun.Sample;

/**
 * The measured repetitions of every case, and what they add up to. Ratios are
 * starter/floor, each the median of the ratios of repetitions run side by side, so that
 * noise from the rest of the machine cancels: a burst of other work spoils one
 * repetition, not the result.
 */
final class Results {

	static final double MIN_THROUGHPUT_RATIO = 0.85;

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
			List<Sample> starter = sides.getOrDefault(Side.STARTER, List.of());
			List<Sample> floor = sides.getOrDefault(Side.FLOOR, List.of());
			if (!starter.isEmpty() && starter.size() == floor.size()) {
				rows.add(new Row(threads, workload, Summary.of(starter), Summary.of(floor),
						pairedRatios(starter, floor, Sample::throughput), pairedRatios(starter, floor, Results::p99)));
			}
		}));
		return rows;
	}

	private static double[] pairedRatios(List<Sample> starter, List<Sample> floor, ToDoubleFunction<Sample> measure) {
		double[] ratios = new double[starter.size()];
		for (int i = 0; i < ratios.length; i++) {
			ratios[i] = measure.applyAsDouble(starter.get(i)) / measure.applyAsDouble(floor.get(i));
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
	 * Starter and floor side by side for one workload at one thread count.
	 *
	 * @param threads caller threads
	 * @param workload the workload
	 * @param starter the starter's repetitions
	 * @param floor the floor's repetitions
	 * @param throughputRatios starter/floor throughput of each pair of repetitions,
	 * sorted
	 * @param p99Ratios starter/floor p99 latency of each pair of repetitions, sorted
	 */
	record Row(int threads, Workload workload, Summary starter, Summary floor, double[] throughputRatios,
			double[] p99Ratios) {

		double throughputRatio() {
			return median(this.throughputRatios);
		}

		double p99Ratio() {
			return median(this.p99Ratios);
		}

		boolean meetsTargets() {
			return throughputRatio() >= MIN_THROUGHPUT_RATIO && p99Ratio() <= MAX_P99_RATIO;
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
