package dev.idempotency.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Options of {@link RedisHarness}, from its command line.
 *
 * @param threads the caller thread counts to measure
 * @param workloads the workloads to measure
 * @param sides the sides to measure, interleaved
 * @param measurement how long each measured repetition of a case lasts
 * @param repetitions how many measured repetitions of each case, interleaved
 * @param warmup how long each case runs before anything is measured
 * @param output the Markdown file the results are written to
 */
record HarnessOptions(List<Integer> threads, List<Workload> workloads, List<Side> sides, Duration measurement,
		int repetitions, Duration warmup, Path output) {

	static final String USAGE = """
			Options (all optional):
			  --quick            1s x 2 repetitions, 3s warm-up; writes target/redis-harness-quick.md
			  --threads=1,8,32   caller thread counts
			  --workloads=new,replays,batches  which workloads (new keys, replays, batches of 100
			                     through executeAll against the lettuce side at 1 and 8 threads)
			  --sides=starter,floor,lettuce,lettuce-json,si,jdempotent  which sides (default: all but
			                     starter-acks)
			                     starter-acks: the starter with replica-acks=1 (gives Redis a replica)
			  --seconds=3        length of each measured repetition
			  --reps=5           measured repetitions of each case
			  --warmup=3         seconds each case runs before the first measurement
			  --out=FILE         where to write the results (default results/redis-harness.md)
			""";

	static HarnessOptions parse(String... args) {
		List<String> options = Arrays.stream(args)
			.flatMap((arg) -> Arrays.stream(arg.trim().split("\\s+")))
			.filter((arg) -> !arg.isEmpty())
			.toList();
		boolean quick = options.contains("--quick");
		List<Integer> threads = List.of(1, 8, 32);
		List<Workload> workloads = List.of(Workload.values());
		// The variant gives Redis a replica, which every other side would then pay for
		List<Side> sides = Arrays.stream(Side.values()).filter((side) -> side.kind() != Side.Kind.VARIANT).toList();
		double seconds = quick ? 1 : 3;
		int repetitions = quick ? 2 : 5;
		double warmup = 3;
		Path output = Path.of(quick ? "target/redis-harness-quick.md" : "results/redis-harness.md");
		for (String option : options) {
			String value = option.substring(option.indexOf('=') + 1);
			if (option.startsWith("--threads=")) {
				threads = Arrays.stream(value.split(",")).map(Integer::valueOf).toList();
			}
			else if (option.startsWith("--workloads=")) {
				workloads = Arrays.stream(value.split(","))
					.map((name) -> name.equals("new") ? Workload.NEW_KEYS
							: Workload.valueOf(name.toUpperCase(Locale.ROOT)))
					.toList();
			}
			else if (option.startsWith("--sides=")) {
				// In Side's order, whatever the order given: the report lists them so
				sides = Arrays.stream(value.split(",")).map(Side::ofOption).distinct().sorted().toList();
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
			else if (option.startsWith("--out=")) {
				output = Path.of(value);
			}
			else if (!option.equals("--quick")) {
				throw new IllegalArgumentException("Unknown option " + option + "\n" + USAGE);
			}
		}
		return new HarnessOptions(threads, workloads, sides, seconds(seconds), repetitions, seconds(warmup), output);
	}

	private static Duration seconds(double seconds) {
		return Duration.ofMillis((long) (seconds * 1000));
	}

}
