package dev.idempotency.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.benchmarks.LoadRun.Sample;
import dev.idempotency.test.jdbc.DatabaseKind;

/**
 * The measured repetitions of every case of {@link JdbcHarness}. A ratio is the median of
 * the ratios of repetitions in which both sides ran interleaved, so that a burst of other
 * work on the machine spoils one repetition, not the result.
 */
final class JdbcResults {

	/**
	 * Lowest starter/floor throughput ratio of the target.
	 */
	static final double MIN_RATIO = 0.85;

	private final Map<Case, Map<JdbcSide, List<Sample>>> samples = new LinkedHashMap<>();

	void add(Case key, JdbcSide side, Sample sample) {
		this.samples.computeIfAbsent(key, (k) -> new LinkedHashMap<>())
			.computeIfAbsent(side, (s) -> new ArrayList<>())
			.add(sample);
	}

	Map<Case, Map<JdbcSide, List<Sample>>> all() {
		return this.samples;
	}

	/**
	 * Return the ratio of two sides' throughput in each repetition, sorted.
	 */
	static double[] ratios(Map<JdbcSide, List<Sample>> sides, JdbcSide over, JdbcSide under) {
		List<Sample> top = sides.get(over);
		List<Sample> bottom = sides.get(under);
		if (top == null || bottom == null) {
			return new double[0];
		}
		int count = Math.min(top.size(), bottom.size());
		double[] ratios = new double[count];
		for (int i = 0; i < count; i++) {
			ratios[i] = top.get(i).throughput() / bottom.get(i).throughput();
		}
		Arrays.sort(ratios);
		return ratios;
	}

	static double median(double[] sorted) {
		int n = sorted.length;
		return (n % 2 == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	}

	static Sample sum(List<Sample> samples) {
		return samples.stream().reduce(Sample::plus).orElseThrow();
	}

	/**
	 * One case: a database, a thread count, a workload.
	 *
	 * @param database the database
	 * @param threads the caller threads
	 * @param workload the workload
	 */
	record Case(DatabaseKind database, int threads, Workload workload) {

	}

}
