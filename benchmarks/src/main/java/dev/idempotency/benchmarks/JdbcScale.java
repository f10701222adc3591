package dev.idempotency.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

import com.zaxxer.hikari.HikariDataSource;

import dev.idempotency.benchmarks.LoadRun.Sample;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.jdbc.JdbcRecordCleaner;
import dev.idempotency.test.jdbc.DatabaseKind;
import dev.idempotency.test.jdbc.TestDatabase;
import dev.idempotency.test.jdbc.TestDatabases;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The JDBC store with a million rows in its table, half of them expired: the acquire's
 * latency through the store (new keys and replays, against the same on a table of a few
 * thousand rows), the plan of the acquire statement, and the cleaner's rows per second at
 * two batch sizes. Options: {@code --databases=postgresql,mariadb}, {@code --rows=N},
 * {@code --seconds=S}, {@code --out=FILE}.
 */
public final class JdbcScale {

	private static final int BATCH = 100_000;

	private static final Duration CLEANUP_LIMIT = Duration.ofSeconds(40);

	private JdbcScale() {
	}

	public static void main(String[] args) throws Exception {
		JdbcOptions options = JdbcOptions.parse(Arrays.stream(args)
			.filter((arg) -> arg.startsWith("--databases") || arg.startsWith("--seconds"))
			.toArray(String[]::new));
		int rows = Arrays.stream(args)
			.filter((arg) -> arg.startsWith("--rows="))
			.map((arg) -> Integer.parseInt(arg.substring(7)))
			.findFirst()
			.orElse(1_000_000);
		Path output = Arrays.stream(args)
			.filter((arg) -> arg.startsWith("--out="))
			.map((arg) -> Path.of(arg.substring(6)))
			.findFirst()
			.orElse(Path.of("results/jdbc-scale.md"));
		StringBuilder md = new StringBuilder("# JDBC store with " + String.format(Locale.ROOT, "%,d", rows)
				+ " rows\n\nRun of `./mvnw -q -Pbenchmarks -pl benchmarks test-compile exec:exec@jdbc-scale`; load "
				+ "average (1 min) before: " + MachineInfo.loadAverage() + ". Half the rows expired an hour ago "
				+ "(the cleaner's work), half are completed records that live for a day. Acquire latency is "
				+ "`JdbcIdempotencyStore.acquire` called directly, " + options.measurement().toMillis()
				+ " ms per case at 1 thread, then at 8: new keys insert a row, replays read a live completed "
				+ "record.\n\n");
		for (DatabaseKind kind : options.databases()) {
			TestDatabase database = TestDatabases.get(kind).createDatabase();
			try (HikariDataSource pool = database.dataSource(16);
					ConfigurableApplicationContext application = BenchmarkApplication.onJdbc(pool)) {
				measure(kind, pool, application.getBean(JdbcIdempotencyStore.class), rows, options.measurement(), md);
			}
		}
		md.append("Load average (1 min) after: ").append(MachineInfo.loadAverage()).append(".\n");
		Files.createDirectories(output.toAbsolutePath().getParent());
		Files.writeString(output, md.toString());
		System.out.println(md);
	}

	private static void measure(DatabaseKind kind, HikariDataSource pool, JdbcIdempotencyStore store, int rows,
			Duration duration, StringBuilder md) throws SQLException {
		md.append("## ").append(kind.label()).append("\n\n");
		md.append("| table | threads | new keys calls/s | new keys p50 / p99 µs | replays calls/s "
				+ "| replays p50 / p99 µs |\n|---|---:|---:|---:|---:|---:|\n");
		fill(kind, pool, 0, 2_000);
		latency(store, "2,000 rows", 1, duration, md);
		long start = System.nanoTime();
		for (int from = 2_000; from < rows; from += BATCH) {
			fill(kind, pool, from, Math.min(rows, from + BATCH));
		}
		double fillSeconds = (System.nanoTime() - start) / 1e9;
		analyze(kind, pool);
		String table = String.format(Locale.ROOT, "%,d rows", rows);
		latency(store, table, 1, duration, md);
		latency(store, table, 8, duration, md);
		md.append(String.format(Locale.ROOT, "%nFilled in %.1f s. The acquire's plan (`EXPLAIN`):%n%n```%n%s```%n%n",
				fillSeconds, explain(kind, pool)));
		md.append(
				"| cleaner batch size | rows deleted | seconds | rows/s | ms per batch |\n|---:|---:|---:|---:|---:|\n");
		JdbcRecordCleaner cleaner = new JdbcRecordCleaner(pool, JdbcIdempotencyStore.DEFAULT_TABLE);
		int expired = rows / 2;
		clean(cleaner, 500, expired / 2, md);
		clean(cleaner, 5_000, expired, md);
		md.append('\n');
	}

	private static void latency(JdbcIdempotencyStore store, String table, int threads, Duration duration,
			StringBuilder md) {
		AcquireRequest request = new AcquireRequest("scale-owner-0001", Duration.ofSeconds(30), Duration.ofDays(1),
				null);
		int run = (int) (System.nanoTime() & 0x7fff);
		Sample fresh = LoadRun.run((id) -> store.acquire(new RecordKey(Payments.OPERATION, id), request),
				(thread, sequence) -> Ids.unique(run, thread, sequence), threads, duration);
		// The odd rows of the fill live: replays cycle over the first thousand of them
		Sample replay = LoadRun.run((id) -> store.acquire(new RecordKey(Payments.OPERATION, id), request),
				(thread, sequence) -> fillKey(1 + 2 * ((sequence + thread * 97L) % 1000)), threads, duration);
		md.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %.0f / %.0f | %,.0f | %.0f / %.0f |%n", table,
				threads, fresh.throughput(), fresh.latency().getValueAtPercentile(50) / 1000.0,
				fresh.latency().getValueAtPercentile(99) / 1000.0, replay.throughput(),
				replay.latency().getValueAtPercentile(50) / 1000.0,
				replay.latency().getValueAtPercentile(99) / 1000.0));
	}

	private static String fillKey(long n) {
		return String.format(Locale.ROOT, "f%015x", n);
	}

	// Server-side, in one statement per batch: even numbers expired an hour ago, odd ones
	// are completed records that live for a day
	private static void fill(DatabaseKind kind, HikariDataSource pool, int from, int to) throws SQLException {
		String postgres = "INSERT INTO idempotency_record (record_key, state, fence, owner, takeover, started_at, "
				+ "lease_until, completed_at, expires_at, result) SELECT '" + Payments.OPERATION + ":f' || "
				+ "lpad(to_hex(g), 15, '0'), 'COMPLETED', 1, 'fill-owner-00001', FALSE, now(), now(), now(), "
				+ "CASE WHEN g % 2 = 0 THEN now() - INTERVAL '1 hour' ELSE now() + INTERVAL '1 day' END, ? "
				+ "FROM generate_series(?, ?) AS g";
		String mariaDb = "INSERT INTO idempotency_record (record_key, state, fence, owner, takeover, started_at, "
				+ "lease_until, completed_at, expires_at, result) SELECT CONCAT('" + Payments.OPERATION + ":f', "
				+ "LPAD(LOWER(HEX(n)), 15, '0')), 'COMPLETED', 1, 'fill-owner-00001', FALSE, UTC_TIMESTAMP(6), "
				+ "UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), IF(n % 2 = 0, UTC_TIMESTAMP(6) - INTERVAL 1 HOUR, "
				+ "UTC_TIMESTAMP(6) + INTERVAL 1 DAY), ? FROM (SELECT seq + " + from + " AS n FROM seq_1_to_"
				+ (to - from) + ") AS s";
		try (Connection connection = pool.getConnection();
				PreparedStatement statement = connection
					.prepareStatement((kind == DatabaseKind.POSTGRESQL) ? postgres : mariaDb)) {
			statement.setBytes(1, new byte[200]);
			if (kind == DatabaseKind.POSTGRESQL) {
				statement.setInt(2, from + 1);
				statement.setInt(3, to);
			}
			statement.executeUpdate();
		}
	}

	private static void analyze(DatabaseKind kind, HikariDataSource pool) throws SQLException {
		try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
			statement
				.execute(((kind == DatabaseKind.POSTGRESQL) ? "ANALYZE " : "ANALYZE TABLE ") + "idempotency_record");
		}
	}

	private static String explain(DatabaseKind kind, HikariDataSource pool) throws SQLException {
		boolean postgres = kind == DatabaseKind.POSTGRESQL;
		String key = "'" + Payments.OPERATION + ":" + fillKey(1) + "'";
		String sql = postgres
				? String.format(JdbcFloor.PG_ACQUIRE, "idempotency_record")
					.replaceFirst("\\?", key)
					.replaceFirst("\\?", key)
					.replaceFirst("\\?", "'o'")
					.replace("?", "1000")
					.replace("1000 FROM now WHERE", "NULL FROM now WHERE")
				: String.format(JdbcFloor.MARIADB_READ, "idempotency_record").replace("?", key);
		StringBuilder plan = new StringBuilder();
		try (Connection connection = pool.getConnection();
				Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("EXPLAIN " + sql)) {
			int columns = rs.getMetaData().getColumnCount();
			while (rs.next()) {
				for (int i = 1; i <= columns; i++) {
					plan.append((i > 1) ? " | " : "")
						.append(postgres ? "" : rs.getMetaData().getColumnLabel(i) + "=")
						.append(rs.getString(i));
				}
				plan.append('\n');
			}
		}
		return plan.toString();
	}

	private static void clean(JdbcRecordCleaner cleaner, int batchSize, int upTo, StringBuilder md) {
		long start = System.nanoTime();
		long deadline = start + CLEANUP_LIMIT.toNanos();
		int deleted = 0;
		int batches = 0;
		while (deleted < upTo && System.nanoTime() < deadline) {
			int rows = cleaner.deleteExpired(batchSize);
			batches++;
			deleted += rows;
			if (rows < batchSize) {
				break;
			}
		}
		double seconds = (System.nanoTime() - start) / 1e9;
		md.append(String.format(Locale.ROOT, "| %,d | %,d | %.1f | %,.0f | %.1f |%n", batchSize, deleted, seconds,
				deleted / seconds, seconds * 1000 / batches));
	}

}
