package dev.idempotency.benchmarks;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.idempotency.benchmarks.Contender.Protocol;
import dev.idempotency.benchmarks.Results.Comparison;
import dev.idempotency.benchmarks.Results.Row;
import dev.idempotency.benchmarks.Results.Summary;
import dev.idempotency.benchmarks.Side.Kind;

/**
 * Writes the results as Markdown.
 */
final class Report {

	private static final String NONE = "—";

	private Report() {
	}

	static String markdown(HarnessOptions options, MachineInfo machine, String loadBefore, String loadAfter,
			Map<Side, Protocol> protocols, Results results, RecordMemory memory) {
		StringBuilder md = new StringBuilder();
		md.append("# Redis harness: the starter against the floors and the peers\n\n");
		md.append("Run of `./mvnw -q -Pbenchmarks -pl benchmarks test-compile exec:exec` on ")
			.append(ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME))
			.append(". Each case ran ")
			.append(seconds(options.warmup()))
			.append(" to warm up, then ")
			.append(options.repetitions())
			.append(" measured repetitions of ")
			.append(seconds(options.measurement()))
			.append(" per side and thread count, each cut into six slices; the sides take turns slice by slice, "
					+ "in an order that rotates by one every slice and every repetition, so that every side gets "
					+ "the same slices and none always follows another. All sides ran in the same JVM against "
					+ "one `redis-server` started by the harness.");
		if (options.sides().contains(Side.STARTER_ACKS)) {
			md.append(" That server had one replica, also started by the harness on this machine, for every side.");
		}
		md.append("\n\n");
		md.append("- **new keys**: every call has a key never seen before.\n");
		md.append("- **replays**: every call has the key of a call completed before the repetition (1,024 of them, "
				+ "cycled), which each side completed in its own keyspace (the starter's and the floors' records "
				+ "are the same).\n\n");
		md.append("The method returns a record whose JSON is ")
			.append(memory.resultLength())
			.append(" bytes, and does nothing else.\n\n");
		contenders(md, protocols);
		md.append("Ratios are starter/side: the median of the ratios of the repetitions, each of which ran every "
				+ "side interleaved, with their range in brackets; this cancels most noise from other work on the "
				+ "machine (a burst of it spoils one repetition, not the result). Latency percentiles are over all "
				+ "repetitions' calls. Targets: against each floor, throughput ratio ≥ ")
			.append(Results.MIN_THROUGHPUT_RATIO)
			.append(" and p99 ratio ≤ ")
			.append(Results.MAX_P99_RATIO)
			.append("; against each peer, the starter leads (throughput ratio > 1). The peers do not do the same "
					+ "work per call as the starter, nor the same round trips: the table above says what each "
					+ "does.\n\n");
		machine(md, machine, loadBefore, loadAfter);
		List<Row> rows = results.rows();
		table(md, rows);
		targets(md, options.sides(), rows);
		cpu(md, rows);
		memory(md, memory);
		return md.toString();
	}

	private static void contenders(StringBuilder md, Map<Side, Protocol> protocols) {
		md.append("## Sides\n\n");
		md.append("| side | what it is | new key: round trips | duplicate: round trips | a duplicate gets "
				+ "| in flight, failures, crashes |\n");
		md.append("|---|---|---|---|---|---|\n");
		protocols.forEach((side, protocol) -> md.append("| **")
			.append(side.label())
			.append("** | ")
			.append(protocol.what())
			.append(" | ")
			.append(protocol.newKey())
			.append(" | ")
			.append(protocol.duplicate())
			.append(" | ")
			.append(protocol.duplicateGets())
			.append(" | ")
			.append(protocol.failures())
			.append(" |\n"));
		md.append('\n');
	}

	private static void machine(StringBuilder md, MachineInfo machine, String loadBefore, String loadAfter) {
		md.append("## Machine\n\n| | |\n|---|---|\n");
		md.append("| CPUs (nproc) | ").append(machine.cpus()).append(" |\n");
		md.append("| CPU | ").append(machine.cpuModel()).append(" |\n");
		md.append("| JDK | ").append(machine.jdk()).append(" |\n");
		md.append("| OS | ").append(machine.os()).append(" |\n");
		md.append("| Redis | ").append(machine.redis()).append(" |\n");
		md.append("| load average (1 min) before / after the run | ")
			.append(loadBefore)
			.append(" / ")
			.append(loadAfter)
			.append(" |\n\n");
	}

	private static void table(StringBuilder md, List<Row> rows) {
		md.append("## Throughput and latency\n\n");
		md.append("| threads | workload | side | calls/s | p50 / p99 / p99.9 µs | starter/side calls/s "
				+ "| starter/side p99 | target |\n");
		md.append("|---:|---|---|---:|---:|---:|---:|---|\n");
		for (Row row : rows) {
			row.summaries().forEach((side, summary) -> {
				Comparison comparison = row.comparisons().get(side);
				md.append("| ")
					.append(row.threads())
					.append(" | ")
					.append(row.workload().label())
					.append(" | ")
					.append(side.label())
					.append(" | ")
					.append(String.format(Locale.ROOT, "%,.0f", summary.throughput()))
					.append(" | ")
					.append(latencies(summary))
					.append(" | ")
					.append((comparison != null) ? range(comparison.throughputRatio(), comparison.throughputRatios())
							: NONE)
					.append(" | ")
					.append((comparison != null) ? range(comparison.p99Ratio(), comparison.p99Ratios()) : NONE)
					.append(" | ")
					.append((comparison != null) ? verdict(comparison) : NONE)
					.append(" |\n");
			});
		}
		md.append('\n');
	}

	private static void targets(StringBuilder md, List<Side> sides, List<Row> rows) {
		List<Side> others = sides.stream()
			.filter((side) -> side.kind() != Kind.STARTER && side.kind() != Kind.VARIANT)
			.toList();
		if (others.isEmpty() || !sides.contains(Side.STARTER)) {
			return;
		}
		md.append("## Targets\n\n");
		md.append("| threads | workload |");
		others.forEach((side) -> md.append(' ')
			.append((side.kind() == Kind.PEER) ? "leads " : "vs ")
			.append(side.label())
			.append(" |"));
		md.append("\n|---:|---|");
		others.forEach((side) -> md.append("---|"));
		md.append('\n');
		for (Row row : rows) {
			md.append("| ").append(row.threads()).append(" | ").append(row.workload().label()).append(" |");
			for (Side side : others) {
				Comparison comparison = row.comparisons().get(side);
				md.append(' ').append((comparison != null) ? verdict(comparison) : NONE).append(" |");
			}
			md.append('\n');
		}
		md.append('\n');
		for (Side side : others) {
			md.append("- ").append(side.label()).append(": ").append(Comparison.target(side.kind())).append('\n');
		}
		md.append('\n');
	}

	private static void cpu(StringBuilder md, List<Row> rows) {
		md.append("CPU per call, in µs, over the same repetitions: the caller threads (each side's own work "
				+ "is there), the whole JVM (callers, Lettuce's event loops, GC, JIT) and the Redis server. Under "
				+ "contention from other work this is steadier than throughput.\n\n");
		md.append("| threads | workload | side | callers | JVM | JVM − starter | Redis |\n");
		md.append("|---:|---|---|---:|---:|---:|---:|\n");
		for (Row row : rows) {
			Summary starter = row.summaries().get(Side.STARTER);
			row.summaries()
				.forEach((side,
						summary) -> md.append(String.format(Locale.ROOT, "| %d | %s | %s | %.1f | %.1f | %s | %.1f |%n",
								row.threads(), row.workload().label(), side.label(), summary.callerCpuMicrosPerCall(),
								summary.jvmCpuMicrosPerCall(),
								(starter != null && side != Side.STARTER) ? String.format(Locale.ROOT, "%+.1f",
										summary.jvmCpuMicrosPerCall() - starter.jvmCpuMicrosPerCall()) : NONE,
								summary.redisCpuMicrosPerCall())));
		}
		md.append('\n');
	}

	private static void memory(StringBuilder md, RecordMemory memory) {
		md.append("## Redis memory per completed record\n\n");
		md.append("One STRING per record (`OBJECT ENCODING` ")
			.append(memory.encoding())
			.append("), measured with `MEMORY USAGE key SAMPLES 0` after one call of the starter.\n\n");
		md.append("| key | result | stored value | MEMORY USAGE | overhead (usage − key − result) "
				+ "| all-in: used_memory growth per record |\n");
		md.append("|---:|---:|---:|---:|---:|---:|\n");
		md.append("| ")
			.append(memory.keyLength())
			.append(" B | ")
			.append(memory.resultLength())
			.append(" B | ")
			.append(memory.valueLength())
			.append(" B | ")
			.append(memory.usage())
			.append(" B | ")
			.append(memory.overhead())
			.append(" B | ")
			.append(String.format(Locale.ROOT, "%.0f B (over %,d records)", memory.allIn(), memory.records()))
			.append(" |\n\n");
		md.append(memory.explanation()).append('\n');
		md.append(String.format(Locale.ROOT,
				"The all-in figure adds what `MEMORY USAGE` leaves out: the keyspace entry's real size class "
						+ "(32 bytes, not 24), the expiry dictionary's entry (32 bytes), and the 8-byte slots of both "
						+ "dictionaries' hash tables, which grow by powers of two: %.0f bytes predicted, %.0f "
						+ "measured.%n%n",
				memory.modelledAllIn(), memory.allIn()));
		md.append(memory.formatOptions());
	}

	private static String verdict(Comparison comparison) {
		if (comparison.side().kind() == Kind.VARIANT) {
			return "cost";
		}
		return comparison.meetsTarget() ? "met" : "**missed**";
	}

	private static String range(double median, double[] sorted) {
		return String.format(Locale.ROOT, "%.2f (%.2f–%.2f)", median, sorted[0], sorted[sorted.length - 1]);
	}

	private static String latencies(Summary summary) {
		return String.format(Locale.ROOT, "%.0f / %.0f / %.0f", summary.p50() / 1000, summary.p99() / 1000,
				summary.p999() / 1000);
	}

	private static String seconds(Duration duration) {
		return String.format(Locale.ROOT, "%.1fs", duration.toMillis() / 1000.0).replace(".0s", "s");
	}

}
