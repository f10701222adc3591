package dev.idempotency.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.benchmarks.LoadRun.Call;
import dev.idempotency.benchmarks.LoadRun.IdSource;
import dev.idempotency.benchmarks.LoadRun.Sample;
import dev.idempotency.codec.ResultCodec;
import dev.idempotency.engine.OperationSettings;
import dev.idempotency.store.dynamodb.DynamoDbTable;
import dev.idempotency.test.dynamodb.DynamoDbServer;
import dev.idempotency.test.dynamodb.TestDynamoDb;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;

/**
 * The DynamoDB harness: the starter on the DynamoDB store ({@code idempotency.store=
 * dynamodb}, a Boot application) against {@link DynamoDbFloor}, the store's own requests
 * by hand on the same client, side by side on one dynalite (from the test support:
 * {@code IDEMPOTENCY_TEST_DYNAMODB_URL}, else one started from the machine). dynalite's
 * absolute speed means nothing; the ratio does. Each repetition starts on a new table
 * holding the replay keys alone, completed by the starter; each case alternates the two
 * sides in short slices, and the ratio of each repetition is reported as a median and a
 * range.
 */
public final class DynamoDbHarness {

	private static final String TABLE = "idempotency_bench";

	private static final int REPLAY_KEYS = 1024;

	private static final int SLICES = 4;

	private final DynamoDbClient client;

	private final Payments payments;

	private final Map<String, Call> sides = new LinkedHashMap<>();

	private final ReplayKeys replays = new ReplayKeys(REPLAY_KEYS);

	private final AtomicInteger runs = new AtomicInteger(1);

	private DynamoDbHarness(DynamoDbClient client, Payments payments, DynamoDbFloor floor) {
		this.client = client;
		this.payments = payments;
		this.sides.put("starter", payments::charge);
		this.sides.put("floor", floor::call);
	}

	public static void main(String[] args) throws Exception {
		List<String> options = Arrays.stream(args)
			.flatMap((arg) -> Arrays.stream(arg.trim().split("\\s+")))
			.filter((arg) -> !arg.isEmpty())
			.toList();
		boolean quick = options.contains("--quick");
		List<Integer> threads = List.of(1, 8, 32);
		int repetitions = quick ? 2 : 5;
		Duration measurement = Duration.ofSeconds(quick ? 1 : 2);
		Path output = Path.of(quick ? "target/dynamodb-harness-quick.md" : "results/dynamodb-harness.md");
		for (String option : options) {
			String value = option.substring(option.indexOf('=') + 1);
			if (option.startsWith("--threads=")) {
				threads = Arrays.stream(value.split(",")).map(Integer::valueOf).toList();
			}
			else if (option.startsWith("--reps=")) {
				repetitions = Integer.parseInt(value);
			}
			else if (option.startsWith("--out=")) {
				output = Path.of(value);
			}
			else if (!option.equals("--quick")) {
				throw new IllegalArgumentException(
						"Unknown option " + option + "; options: --quick, --threads=1,8,32, --reps=5, --out=FILE");
			}
		}
		DynamoDbServer server = TestDynamoDb.get();
		String loadBefore = MachineInfo.loadAverage();
		StringBuilder report = new StringBuilder();
		try (DynamoDbClient client = server.client()) {
			DynamoDbTable.initialize(client, TABLE);
			try (ConfigurableApplicationContext application = BenchmarkApplication.onDynamoDb(client, TABLE)) {
				Payments payments = application.getBean(Payments.class);
				byte[] body = application.getBean(ResultCodec.class)
					.forType(ResolvableType.forClass(Receipt.class))
					.encode(Receipt.settled(Ids.replays(1)[0]));
				OperationSettings settings = RedisHarness
					.settings(application.getBean(IdempotentOperationSource.class));
				DynamoDbFloor floor = new DynamoDbFloor(client, TABLE, Payments.OPERATION + ":",
						settings.lockTimeout().toMillis(), settings.retention().toMillis(), body);
				DynamoDbHarness harness = new DynamoDbHarness(client, payments, floor);
				harness.check(floor);
				harness.run(threads, repetitions, measurement, report);
			}
		}
		String text = "# DynamoDB harness\n\n" + server.describe() + "; " + repetitions + " repetitions of "
				+ measurement.toSeconds() + " s per case; load average (1 min) before / after: " + loadBefore + " / "
				+ MachineInfo.loadAverage() + "\n\n"
				+ "| threads | workload | starter calls/s | floor calls/s | starter ÷ floor (target ≥ 0.85) | "
				+ "callers' CPU µs/call starter, floor |\n|---:|---|---:|---:|---:|---|\n" + report;
		Files.createDirectories(output.toAbsolutePath().getParent());
		Files.writeString(output, text);
		System.out.println(text);
		log("written to %s", output.toAbsolutePath());
	}

	// Each side replays the other's records
	private void check(DynamoDbFloor floor) {
		populate();
		floor.checkReplays(this.replays.first());
		String floorKey = Ids.unique(0, 1, 1);
		floor.call(floorKey);
		if (!this.payments.charge(floorKey).equals(Receipt.settled(this.replays.first()))) {
			throw new IllegalStateException("The starter does not replay the floor's record");
		}
		log("checked that each side replays the other's records");
	}

	private void run(List<Integer> threadCounts, int repetitions, Duration measurement, StringBuilder report)
			throws Exception {
		for (Workload workload : List.of(Workload.NEW_KEYS, Workload.REPLAYS)) {
			populate();
			for (Call side : this.sides.values()) {
				LoadRun.run(side, ids(workload), 8, Duration.ofSeconds(2));
			}
		}
		Duration slice = measurement.dividedBy(SLICES);
		for (int threads : threadCounts) {
			for (Workload workload : List.of(Workload.NEW_KEYS, Workload.REPLAYS)) {
				List<double[]> reps = new ArrayList<>();
				for (int repetition = 0; repetition < repetitions; repetition++) {
					populate();
					Sample starter = null;
					Sample floor = null;
					for (int i = 0; i < SLICES; i++) {
						boolean starterFirst = (repetition + i) % 2 == 0;
						for (int turn = 0; turn < 2; turn++) {
							boolean isStarter = (turn == 0) == starterFirst;
							Sample sample = LoadRun.run(this.sides.get(isStarter ? "starter" : "floor"), ids(workload),
									threads, slice);
							if (isStarter) {
								starter = (starter != null) ? starter.plus(sample) : sample;
							}
							else {
								floor = (floor != null) ? floor.plus(sample) : sample;
							}
						}
					}
					reps.add(new double[] { starter.throughput(), floor.throughput(), starter.callerCpuMicrosPerCall(),
							floor.callerCpuMicrosPerCall() });
					log("%2d threads, rep %d/%d, %-8s starter %,8.0f calls/s, floor %,8.0f calls/s", threads,
							repetition + 1, repetitions, workload.label(), starter.throughput(), floor.throughput());
				}
				report.append(row(threads, workload, reps));
			}
		}
	}

	private static String row(int threads, Workload workload, List<double[]> reps) {
		double[] ratios = reps.stream().mapToDouble((rep) -> rep[0] / rep[1]).sorted().toArray();
		double ratio = JdbcResults.median(ratios);
		return String.format(Locale.ROOT, "| %d | %s | %,.0f | %,.0f | %.2f (%.2f–%.2f) %s | %.1f, %.1f |%n", threads,
				workload.label(), median(reps, 0), median(reps, 1), ratio, ratios[0], ratios[ratios.length - 1],
				(ratio >= 0.85) ? "met" : "**missed**", median(reps, 2), median(reps, 3));
	}

	private static double median(List<double[]> reps, int column) {
		return JdbcResults.median(reps.stream().mapToDouble((rep) -> rep[column]).sorted().toArray());
	}

	private IdSource ids(Workload workload) {
		if (workload == Workload.REPLAYS) {
			return this.replays.cycle();
		}
		int run = this.runs.getAndIncrement();
		return (thread, sequence) -> Ids.unique(run, thread, sequence);
	}

	// A new table holding the replay keys alone, completed by the starter
	private void populate() {
		this.client.deleteTable((request) -> request.tableName(TABLE));
		// Gone before it is created again: a table still being deleted never becomes
		// active
		long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
		while (this.client.listTables().tableNames().contains(TABLE)) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Table " + TABLE + " was not deleted within a minute");
			}
			LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
		}
		DynamoDbTable.initialize(this.client, TABLE);
		this.replays.completeThrough(new StarterSide(this.payments, Side.STARTER));
	}

	static void log(String format, Object... args) {
		System.err.println("[dynamodb-harness] " + String.format(Locale.ROOT, format, args));
	}

}
