package dev.idempotency.benchmarks;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.idempotency.benchmarks.JdbcResults.Case;
import dev.idempotency.benchmarks.LoadRun.Sample;
import dev.idempotency.test.jdbc.DatabaseKind;

/**
 * Writes the results of {@link JdbcHarness} as Markdown.
 */
final class JdbcReport {

	private JdbcReport() {
	}

	static String markdown(JdbcOptions options, Map<DatabaseKind, String> servers, String loadBefore, String loadAfter,
			JdbcResults results) {
		StringBuilder md = new StringBuilder();
		md.append("# JDBC harness: the store against a floor of its own statements\n\n");
		md.append("Run of `./mvnw -q -Pbenchmarks -pl benchmarks test-compile exec:exec@jdbc` on ")
			.append(ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME))
			.append(". Each case ran ")
			.append(seconds(options.warmup()))
			.append(" to warm up, then ")
			.append(options.repetitions())
			.append(" measured repetitions of ")
			.append(seconds(options.measurement()))
			.append(" per side, each cut into six slices that the sides take in turns, in an order that rotates "
					+ "every slice and repetition. Hikari pools of ")
			.append(options.poolSize())
			.append(" connections, one for the application (starter and starter joined), one for the floor.\n\n");
		md.append("- **starter**: `@Idempotent(key = \"#paymentId\")` on a bean of a Boot application "
				+ "(`idempotency.store=jdbc`), no transaction: a new key is the acquire (PostgreSQL: one "
				+ "`INSERT ... ON CONFLICT DO NOTHING` statement that reads the row too; MariaDB: a `SELECT`, then "
				+ "an `INSERT`), the method, the complete (`UPDATE`); a replay is the acquire alone, its result "
				+ "decoded from JSON.\n");
		md.append("- **jdbc floor**: the store's own statements (checked equal to the dialects' at startup), by "
				+ "hand with `PreparedStatement` on a pool of the same size, the same round trips; the body "
				+ "(200 bytes of JSON) encoded once up front, a replay's bytes not decoded.\n");
		md.append("- **starter joined**: the starter's call inside `TransactionTemplate` on the application's "
				+ "data source: the acquire commits at once on a connection of the store's own, the complete "
				+ "runs on the transaction's connection and commits with it. Its ratio is joined ÷ starter "
				+ "(the cost of joining, no target).\n\n");
		md.append("Ratios are the medians of the per-repetition ratios, range in brackets; target starter ÷ floor ≥ ")
			.append(JdbcResults.MIN_RATIO)
			.append(". Latencies over all repetitions' calls; CPU is the callers' threads only (the database "
					+ "server runs on the same two CPUs).\n\n");
		md.append("## Machine\n\n| | |\n|---|---|\n");
		md.append("| CPUs (nproc) | ").append(Runtime.getRuntime().availableProcessors()).append(" |\n");
		md.append("| JDK | ")
			.append(System.getProperty("java.vm.name"))
			.append(' ')
			.append(System.getProperty("java.version"))
			.append(" |\n");
		servers.forEach((kind, server) -> md.append("| ")
			.append(kind.label())
			.append(" | ")
			.append(server)
			.append(" (test server: no fsync) |\n"));
		md.append("| load average (1 min) before / after the run | ")
			.append(loadBefore)
			.append(" / ")
			.append(loadAfter)
			.append(" |\n\n");
		md.append("## Throughput and latency\n\n");
		md.append("| database | threads | workload | starter calls/s | floor calls/s | joined calls/s "
				+ "| starter ÷ floor | target ≥ 0.85 | joined ÷ starter | p50 / p99 µs: starter, floor, joined "
				+ "| callers' CPU µs/call: starter, floor, joined |\n");
		md.append("|---|---:|---|---:|---:|---:|---:|---|---:|---|---|\n");
		results.all().forEach((key, sides) -> row(md, key, sides));
		md.append('\n');
		return md.toString();
	}

	private static void row(StringBuilder md, Case key, Map<JdbcSide, List<Sample>> sides) {
		double[] floor = JdbcResults.ratios(sides, JdbcSide.STARTER, JdbcSide.FLOOR);
		double[] joined = JdbcResults.ratios(sides, JdbcSide.JOINED, JdbcSide.STARTER);
		md.append("| ")
			.append(key.database().label())
			.append(" | ")
			.append(key.threads())
			.append(" | ")
			.append(key.workload().label());
		for (JdbcSide side : JdbcSide.values()) {
			List<Sample> samples = sides.get(side);
			md.append(" | ")
				.append((samples != null) ? String.format(Locale.ROOT, "%,.0f", JdbcResults.sum(samples).throughput())
						: "—");
		}
		md.append(" | ").append(range(floor)).append(" | ");
		if (floor.length == 0) {
			md.append("—");
		}
		else {
			md.append((JdbcResults.median(floor) >= JdbcResults.MIN_RATIO) ? "met" : "**missed**");
		}
		md.append(" | ").append(range(joined)).append(" | ");
		StringBuilder latency = new StringBuilder();
		StringBuilder cpu = new StringBuilder();
		for (JdbcSide side : JdbcSide.values()) {
			List<Sample> samples = sides.get(side);
			if (samples == null) {
				continue;
			}
			Sample sum = JdbcResults.sum(samples);
			latency.append((latency.length() > 0) ? ", " : "")
				.append(String.format(Locale.ROOT, "%.0f / %.0f", sum.latency().getValueAtPercentile(50) / 1000.0,
						sum.latency().getValueAtPercentile(99) / 1000.0));
			cpu.append((cpu.length() > 0) ? ", " : "")
				.append(String.format(Locale.ROOT, "%.1f", sum.callerCpuMicrosPerCall()));
		}
		md.append(latency).append(" | ").append(cpu).append(" |\n");
	}

	private static String range(double[] sorted) {
		if (sorted.length == 0) {
			return "—";
		}
		return String.format(Locale.ROOT, "%.2f (%.2f–%.2f)", JdbcResults.median(sorted), sorted[0],
				sorted[sorted.length - 1]);
	}

	private static String seconds(Duration duration) {
		return String.format(Locale.ROOT, "%.1fs", duration.toMillis() / 1000.0).replace(".0s", "s");
	}

}
