package dev.idempotency.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;

import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.benchmarks.JdbcResults.Case;
import dev.idempotency.benchmarks.LoadRun.IdSource;
import dev.idempotency.benchmarks.LoadRun.Sample;
import dev.idempotency.codec.ResultCodec;
import dev.idempotency.engine.OperationSettings;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.test.jdbc.DatabaseKind;
import dev.idempotency.test.jdbc.TestDatabase;
import dev.idempotency.test.jdbc.TestDatabases;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Measures the JDBC store against a floor of its own statements done by hand
 * ({@link JdbcFloor}), and the cost of joining the caller's transaction, on PostgreSQL
 * and MariaDB servers of the test support (started from the machine's binaries unless
 * {@code IDEMPOTENCY_TEST_POSTGRES_URL} / {@code IDEMPOTENCY_TEST_MARIADB_URL} name
 * running ones), for new keys and replays at several thread counts, the sides interleaved
 * slice by slice as in {@link RedisHarness}, and writes a Markdown report.
 * <p>
 * Run from the project root with
 * {@code ./mvnw -q -Pbenchmarks -pl benchmarks test-compile exec:exec@jdbc}; options go
 * in {@code -Dharness.args="..."} (see {@link JdbcOptions#USAGE}).
 */
public final class JdbcHarness {

	private static final int REPLAY_KEYS = 1024;

	private static final int WARMUP_THREADS = 8;

	private static final int SLICES = 6;

	private final DatabaseKind kind;

	private final JdbcOptions options;

	private final Payments payments;

	private final DataSource floorPool;

	private final Map<JdbcSide, LoadRun.Call> sides = new EnumMap<>(JdbcSide.class);

	private final ReplayKeys replays = new ReplayKeys(REPLAY_KEYS);

	private final AtomicInteger runs = new AtomicInteger(1);

	private JdbcHarness(DatabaseKind kind, JdbcOptions options, Payments payments, JdbcFloor floor,
			TransactionTemplate transactions, DataSource floorPool) {
		this.kind = kind;
		this.options = options;
		this.payments = payments;
		this.floorPool = floorPool;
		this.sides.put(JdbcSide.STARTER, payments::charge);
		this.sides.put(JdbcSide.FLOOR, floor::call);
		this.sides.put(JdbcSide.JOINED, (id) -> transactions.executeWithoutResult((status) -> payments.charge(id)));
	}

	public static void main(String[] args) throws Exception {
		JdbcOptions options = JdbcOptions.parse(args);
		String loadBefore = MachineInfo.loadAverage();
		JdbcResults results = new JdbcResults();
		Map<DatabaseKind, String> servers = new EnumMap<>(DatabaseKind.class);
		for (DatabaseKind kind : options.databases()) {
			TestDatabase database = TestDatabases.get(kind).createDatabase();
			servers.put(kind, describe(database));
			try (HikariDataSource appPool = database.dataSource(options.poolSize());
					HikariDataSource floorPool = database.dataSource(options.poolSize());
					ConfigurableApplicationContext application = BenchmarkApplication.onJdbc(appPool)) {
				Payments payments = application.getBean(Payments.class);
				// What the starter stores for the first replay key, byte for byte
				byte[] body = application.getBean(ResultCodec.class)
					.forType(ResolvableType.forClass(Receipt.class))
					.encode(Receipt.settled(Ids.replays(1)[0]));
				OperationSettings settings = RedisHarness
					.settings(application.getBean(IdempotentOperationSource.class));
				JdbcFloor floor = new JdbcFloor(floorPool, kind, Payments.OPERATION + ":",
						settings.lockTimeout().toMillis(), settings.retention().toMillis(), body);
				TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(appPool));
				JdbcHarness harness = new JdbcHarness(kind, options, payments, floor, transactions, floorPool);
				harness.check(application.getBean(JdbcIdempotencyStore.class), floor, transactions, body);
				harness.run(results);
			}
		}
		String report = JdbcReport.markdown(options, servers, loadBefore, MachineInfo.loadAverage(), results);
		Path output = options.output().toAbsolutePath();
		Files.createDirectories(output.getParent());
		Files.writeString(output, report);
		System.out.println(report);
		log("written to %s", output);
	}

	private static String describe(TestDatabase database) throws SQLException {
		try (HikariDataSource pool = database.dataSource(1); Connection connection = pool.getConnection()) {
			return connection.getMetaData().getDatabaseProductName() + " "
					+ connection.getMetaData().getDatabaseProductVersion();
		}
	}

	// The floor's statements are the store's; each side replays the other's records; a
	// joined call does join
	private void check(JdbcIdempotencyStore store, JdbcFloor floor, TransactionTemplate transactions, byte[] body)
			throws Exception {
		populate();
		JdbcFloorCheck.check(store, this.kind,
				JdbcFloor.qualifiedTable(this.floorPool, this.kind == DatabaseKind.POSTGRESQL));
		floor.checkReplays(this.replays.first());
		String floorKey = Ids.unique(0, JdbcSide.FLOOR.ordinal(), 1);
		floor.call(floorKey);
		if (!this.payments.charge(floorKey).equals(Receipt.settled(this.replays.first()))) {
			throw new IllegalStateException("The starter does not replay the floor's record");
		}
		Boolean joins = transactions.execute((status) -> store.joinsCurrentTransaction());
		if (!Boolean.TRUE.equals(joins) || store.joinsCurrentTransaction()) {
			throw new IllegalStateException("The joined side does not join, or the starter side does");
		}
		log("%s: checked the floor's statements, its records and the starter's, and joining", this.kind.label());
	}

	private void run(JdbcResults results) throws Exception {
		log("%s: warming up %s per case at %d threads", this.kind.label(), this.options.warmup(), WARMUP_THREADS);
		for (Workload workload : this.options.workloads()) {
			populate();
			for (JdbcSide side : this.sides.keySet()) {
				measure(workload, side, WARMUP_THREADS, this.options.warmup());
			}
		}
		Duration slice = this.options.measurement().dividedBy(SLICES);
		for (int threads : this.options.threads()) {
			for (int repetition = 0; repetition < this.options.repetitions(); repetition++) {
				populate();
				for (Workload workload : this.options.workloads()) {
					Map<JdbcSide, Sample> samples = new EnumMap<>(JdbcSide.class);
					int rep = repetition + 1;
					for (int i = 0; i < SLICES; i++) {
						for (JdbcSide side : turns(repetition + i)) {
							samples.merge(side, measure(workload, side, threads, slice), Sample::plus);
						}
					}
					samples.forEach((side, sample) -> {
						results.add(new Case(this.kind, threads, workload), side, sample);
						log("%s %2d threads, rep %d/%d, %-8s %-15s %,8.0f calls/s  p50 %6.0f µs  p99 %6.0f µs  "
								+ "callers' CPU/call %5.1f µs", this.kind.label(), threads, rep,
								this.options.repetitions(), workload.label(), side.label(), sample.throughput(),
								sample.latency().getValueAtPercentile(50) / 1000.0,
								sample.latency().getValueAtPercentile(99) / 1000.0, sample.callerCpuMicrosPerCall());
					});
				}
			}
		}
	}

	private List<JdbcSide> turns(int turn) {
		List<JdbcSide> order = new ArrayList<>(this.sides.keySet());
		Collections.rotate(order, -(turn % order.size()));
		return order;
	}

	private Sample measure(Workload workload, JdbcSide side, int threads, Duration duration) {
		IdSource ids;
		if (workload == Workload.REPLAYS) {
			ids = this.replays.cycle();
		}
		else {
			int run = this.runs.getAndIncrement();
			ids = (thread, sequence) -> Ids.unique(run, thread, sequence);
		}
		return LoadRun.run(this.sides.get(side), ids, threads, duration);
	}

	// Every repetition starts on a table of the replay keys alone, completed by the
	// starter: every side replays the same records
	private void populate() throws SQLException {
		try (Connection connection = this.floorPool.getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute("TRUNCATE TABLE idempotency_record");
		}
		this.replays.completeThrough(new StarterSide(this.payments, Side.STARTER));
	}

	static void log(String format, Object... args) {
		System.err.println("[jdbc-harness] " + String.format(Locale.ROOT, format, args));
	}

}
