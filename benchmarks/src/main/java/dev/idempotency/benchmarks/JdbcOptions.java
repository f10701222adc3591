package dev.idempotency.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import dev.idempotency.test.jdbc.DatabaseKind;

/**
 * Options of {@link JdbcHarness}, from its command line.
 *
 * @param databases the databases to measure on, one after the other
 * @param threads the caller thread counts to measure
 * @param workloads the workloads to measure
 * @param measurement how long each measured repetition of a case lasts
 * @param repetitions how many measured repetitions of each case, interleaved
 * @param warmup how long each case runs before anything is measured
 * @param poolSize the size of each Hikari pool (the application's, the floor's)
 * @param output the Markdown file the results are written to
 */
record JdbcOptions(List<DatabaseKind> databases, List<Integer> threads, List<Workload> workloads, Duration measurement,
		int repetitions, Duration warmup, int poolSize, Path output) {

	static final String USAGE = """
			Options (all optional):
			  --quick                  1s x 2 repetitions, 2s warm-up; writes target/jdbc-harness-quick.md
			  --databases=postgresql,mariadb
			  --threads=1,8,32         caller thread counts
			  --workloads=new,replays  which workloads
			  --seconds=2              length of each measured repetition
			  --reps=5                 measured repetitions of each case
			  --warmup=3               seconds each case runs before the first measurement
			  --pool=40                size of each Hikari pool: above the most threads, since a joined call
			                           holds its transaction's connection while the acquire takes another
			  --out=FILE               where to write the results (default results/jdbc-harness.md)
			""";

	static JdbcOptions parse(String... args) {
		List<String> options = Arrays.stream(args)
			.flatMap((arg) -> Arrays.stream(arg.trim().split("\\s+")))
			.filter((arg) -> !arg.isEmpty())
			.toList();
		boolean quick = options.contains("--quick");
		List<DatabaseKind> databases = List.of(DatabaseKind.POSTGRESQL, DatabaseKind.MARIADB);
		List<Integer> threads = List.of(1, 8, 32);
		List<Workload> workloads = List.of(Workload.NEW_KEYS, Workload.REPLAYS);
		double seconds = quick ? 1 : 2;
		int repetitions = quick ? 2 : 5;
		double warmup = quick ? 2 : 3;
		int pool = 40;
		Path output = Path.of(quick ? "target/jdbc-harness-quick.md" : "results/jdbc-harness.md");
		for (String option : options) {
			String value = option.substring(option.indexOf('=') + 1);
			if (option.startsWith("--databases=")) {
				databases = Arrays.stream(value.split(","))
					.map((name) -> DatabaseKind.valueOf(name.trim().toUpperCase(Locale.ROOT)))
					.toList();
			}
			else if (option.startsWith("--threads=")) {
				threads = Arrays.stream(value.split(",")).map(Integer::valueOf).toList();
			}
			else if (option.startsWith("--workloads=")) {
				workloads = Arrays.stream(value.split(","))
					.map((name) -> name.equals("new") ? Workload.NEW_KEYS
							: Workload.valueOf(name.toUpperCase(Locale.ROOT)))
					.filter(Workload::isPerCall)
					.toList();
			}
			else if (option.startsWith("--seconds=")) {
				seconds = Double.parseDouble(value);
			}
			else if (option.startsWith("--reps=")) {
				repetitions = Integer.parseInt(value);
			}
			else if (option.startsWith("--warmup=")) {
				warmup = Double.parseDouble(value);
			}
			else if (option.startsWith("--pool=")) {
				pool = Integer.parseInt(value);
			}
			else if (option.startsWith("--out=")) {
				output = Path.of(value);
			}
			else if (!option.equals("--quick")) {
				throw new IllegalArgumentException("Unknown option " + option + "\n" + USAGE);
			}
		}
		int most = threads.stream().mapToInt(Integer::intValue).max().orElse(1);
		if (pool <= most) {
			throw new IllegalArgumentException("--pool=" + pool + " must be above the most threads (" + most
					+ "): a joined call holds two connections");
		}
		return new JdbcOptions(databases, threads, workloads, seconds(seconds), repetitions, seconds(warmup), pool,
				output);
	}

	private static Duration seconds(double seconds) {
		return Duration.ofMillis((long) (seconds * 1000));
	}

}
