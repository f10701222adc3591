package dev.idempotency.benchmarks;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import dev.idempotency.benchmarks.Results.Row;
import dev.idempotency.benchmarks.Results.Summary;

/**
 * Writes the results as Markdown.
 */
final class Report {

	private Report() {
	}

	static String markdown(HarnessOptions options, MachineInfo machine, String loadBefore, String loadAfter,
			Results results, RecordMemory memory) {
		StringBuilder md = new StringBuilder();
		md.append("# Redis harness: the starter against the floor\n\n");
		md.append("Run of `./mvnw -q -pl benchmarks test-compile exec:exec` on ")
			.append(ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME))
			.append(". Each case ran ")
			.append(seconds(options.warmup()))
			.append(" to warm up, then ")
			.append(options.repetitions())
			.append(" measured repetitions of ")
			.append(seconds(options.measurement()))
			.append(" per thread count, each cut into six slices that alternate with the other side's "
					+ "(starter, floor, floor, starter, starter, floor, ...), against one `redis-server` started by "
					+ "the harness.\n\n");
		md.append("- **new keys**: every call has a key never seen before: `EVALSHA acquire`, the method, "
				+ "`EVALSHA complete`.\n");
		md.append("- **replays**: every call has the key of a completed record (1,024 of them, cycled): "
				+ "`EVALSHA acquire` returns the stored result.\n");
		md.append("- **starter**: `@Idempotent(key = \"#paymentId\")` on a bean of a Boot application "
				+ "(auto-configuration, `idempotency.store=redis`), returning a record whose JSON is ")
			.append(memory.resultLength())
			.append(" bytes.\n");
		md.append("- **floor**: the same scripts, keys, arguments and reply shapes by hand through "
				+ "`RedisTemplate.execute(script, argsSerializer, resultSerializer, keys, args)` with byte[] "
				+ "serializers on the application's own connection factory (one shared native Lettuce "
				+ "connection), the body encoded once up front: no JSON, no SpEL, no lease renewal.\n\n");
		md.append("Ratios are starter/floor: the median of the ratios of the repetitions, each of which ran both "
				+ "sides interleaved, with their range in brackets; this cancels most noise from other work on the "
				+ "machine (a burst of it spoils one repetition, not the result). Latency percentiles are over all "
				+ "repetitions' calls. Targets: throughput ratio ≥ ")
			.append(Results.MIN_THROUGHPUT_RATIO)
			.append(", p99 ratio ≤ ")
			.append(Results.MAX_P99_RATIO)
			.append(".\n\n");
		machine(md, machine, loadBefore, loadAfter);
		table(md, results);
		memory(md, memory);
		return md.toString();
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

	private static void table(StringBuilder md, Results results) {
		md.append("## Throughput and latency\n\n");
		md.append("| threads | workload | starter calls/s | floor calls/s | starter/floor calls/s "
				+ "| starter p50 / p99 / p99.9 µs | floor p50 / p99 / p99.9 µs | starter/floor p99 | targets |\n");
		md.append("|---:|---|---:|---:|---:|---:|---:|---:|---|\n");
		for (Row row : results.rows()) {
			md.append("| ")
				.append(row.threads())
				.append(" | ")
				.append(row.workload().label())
				.append(" | ")
				.append(String.format(Locale.ROOT, "%,.0f", row.starter().throughput()))
				.append(" | ")
				.append(String.format(Locale.ROOT, "%,.0f", row.floor().throughput()))
				.append(" | ")
				.append(range(row.throughputRatio(), row.throughputRatios()))
				.append(" | ")
				.append(latencies(row.starter()))
				.append(" | ")
				.append(latencies(row.floor()))
				.append(" | ")
				.append(range(row.p99Ratio(), row.p99Ratios()))
				.append(" | ")
				.append(row.meetsTargets() ? "met" : "**missed**")
				.append(" |\n");
		}
		md.append('\n');
		md.append("CPU per call, in µs, over the same repetitions: the caller threads (the starter's own work "
				+ "is there), the whole JVM (callers, Lettuce's event loop, GC, JIT) and the Redis server. Under "
				+ "contention from other work this is steadier than throughput.\n\n");
		md.append("| threads | workload | callers: starter | floor | JVM: starter | floor | starter − floor "
				+ "| Redis: starter | floor |\n");
		md.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
		for (Row row : results.rows()) {
			Summary starter = row.starter();
			Summary floor = row.floor();
			md.append(String.format(Locale.ROOT, "| %d | %s | %.1f | %.1f | %.1f | %.1f | %+.1f | %.1f | %.1f |%n",
					row.threads(), row.workload().label(), starter.callerCpuMicrosPerCall(),
					floor.callerCpuMicrosPerCall(), starter.jvmCpuMicrosPerCall(), floor.jvmCpuMicrosPerCall(),
					starter.jvmCpuMicrosPerCall() - floor.jvmCpuMicrosPerCall(), starter.redisCpuMicrosPerCall(),
					floor.redisCpuMicrosPerCall()));
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
