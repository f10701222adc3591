package dev.idempotency.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.management.OperatingSystemMXBean;

import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.benchmarks.LoadRun.Call;
import dev.idempotency.benchmarks.LoadRun.IdSource;
import dev.idempotency.benchmarks.LoadRun.Sample;
import dev.idempotency.codec.ResultCodec;
import dev.idempotency.engine.OperationSettings;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Measures the starter against the floor (the same protocol by hand, see {@link Floor})
 * on a {@code redis-server} of its own, for new keys and for replays, at several caller
 * thread counts, and writes a Markdown table of throughput, latency and their ratios,
 * with the Redis memory of a record.
 * <p>
 * Run from the project root with {@code ./mvnw -q -pl benchmarks test-compile exec:exec};
 * options go in {@code -Dharness.args="..."} (see {@link HarnessOptions#USAGE}).
 */
public final class RedisHarness {

	private static final int REPLAY_KEYS = 1024;

	private static final int MEMORY_RECORDS = 20_000;

	private static final int WARMUP_THREADS = 8;

	// Each repetition of a case is cut into slices, interleaved with the other side's
	private static final int SLICES = 6;

	private static final OperatingSystemMXBean PROCESS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private final HarnessOptions options;

	private final Payments payments;

	private final Floor floor;

	private final RedisAdmin admin;

	private final String keyPrefix;

	private final byte[] body;

	private final String[] replayIds = Ids.replays(REPLAY_KEYS);

	private final AtomicInteger runs = new AtomicInteger(1);

	private RedisHarness(ConfigurableApplicationContext application, HarnessOptions options) {
		this.options = options;
		this.payments = application.getBean(Payments.class);
		RedisConnectionFactory connectionFactory = application.getBean(RedisConnectionFactory.class);
		this.admin = new RedisAdmin(connectionFactory);
		this.keyPrefix = application.getEnvironment().getProperty("idempotency.key-prefix", "idempotency:")
				+ Payments.OPERATION + ":";
		this.body = application.getBean(ResultCodec.class)
			.forType(ResolvableType.forClass(Receipt.class))
			.encode(Receipt.settled(this.replayIds[0]));
		OperationSettings settings = settings(application.getBean(IdempotentOperationSource.class));
		this.floor = new Floor(connectionFactory, this.keyPrefix, settings.lockTimeout().toMillis(),
				settings.retention().toMillis(), this.body);
	}

	public static void main(String[] args) throws IOException {
		HarnessOptions options = HarnessOptions.parse(args);
		String loadBefore = MachineInfo.loadAverage();
		try (RedisServer redis = RedisServer.start();
				ConfigurableApplicationContext application = BenchmarkApplication.onRedis(redis.port())) {
			new RedisHarness(application, options).run(loadBefore);
		}
	}

	private void run(String loadBefore) throws IOException {
		MachineInfo machine = MachineInfo.describe(this.admin);
		log("%s; %s; redis %s; %d CPUs; load %s", machine.cpuModel(), machine.jdk(), machine.redis(), machine.cpus(),
				loadBefore);
		checkBothSidesAgree();
		log("warming up: %s per case at %d threads", this.options.warmup(), WARMUP_THREADS);
		for (Workload workload : this.options.workloads()) {
			populate();
			for (Side side : Side.values()) {
				measure(workload, side, WARMUP_THREADS, this.options.warmup());
			}
		}
		Results results = new Results();
		Duration slice = this.options.measurement().dividedBy(SLICES);
		for (int threads : this.options.threads()) {
			for (int repetition = 0; repetition < this.options.repetitions(); repetition++) {
				populate();
				for (Workload workload : this.options.workloads()) {
					Map<Side, Sample> samples = new EnumMap<>(Side.class);
					for (int i = 0; i < SLICES; i++) {
						// ABBA: who goes first alternates, so neither side always follows
						// the other
						List<Side> order = ((repetition + i) % 2 == 0) ? List.of(Side.STARTER, Side.FLOOR)
								: List.of(Side.FLOOR, Side.STARTER);
						for (Side side : order) {
							samples.merge(side, measure(workload, side, threads, slice), Sample::plus);
						}
					}
					for (Side side : Side.values()) {
						Sample sample = samples.get(side);
						results.add(threads, workload, side, sample);
						log("%2d threads, rep %d/%d, %-8s %-7s %,9.0f calls/s  p50 %5.0f µs  p99 %6.0f µs  "
								+ "CPU/call callers %5.1f µs, JVM %5.1f µs, Redis %5.1f µs", threads, repetition + 1,
								this.options.repetitions(), workload.label(), side.name().toLowerCase(Locale.ROOT),
								sample.throughput(), sample.latency().getValueAtPercentile(50) / 1000.0,
								sample.latency().getValueAtPercentile(99) / 1000.0, sample.callerCpuMicrosPerCall(),
								sample.jvmCpuMicrosPerCall(), sample.redisCpuMicrosPerCall());
					}
				}
			}
		}
		RecordMemory memory = RecordMemory.measure(this.admin, this.payments, this.keyPrefix, this.body.length,
				MEMORY_RECORDS);
		String report = Report.markdown(this.options, machine, loadBefore, MachineInfo.loadAverage(), results, memory);
		Path output = this.options.output().toAbsolutePath();
		Files.createDirectories(output.getParent());
		Files.writeString(output, report);
		System.out.println(report);
		log("written to %s", output);
	}

	private Sample measure(Workload workload, Side side, int threads, Duration duration) {
		Call call = (side == Side.STARTER) ? this::callStarter : this.floor::call;
		IdSource ids = ids(workload);
		long jvmCpu = PROCESS.getProcessCpuTime();
		long redisCpu = this.admin.cpuNanos();
		Sample sample = LoadRun.run(call, ids, threads, duration);
		return sample.withCpu(PROCESS.getProcessCpuTime() - jvmCpu, this.admin.cpuNanos() - redisCpu);
	}

	private void callStarter(String id) {
		if (this.payments.charge(id) == null) {
			throw new IllegalStateException("No receipt for " + id);
		}
	}

	private IdSource ids(Workload workload) {
		if (workload == Workload.REPLAYS) {
			String[] ids = this.replayIds;
			return (thread, sequence) -> ids[(int) ((sequence + thread * 31L) % ids.length)];
		}
		int run = this.runs.getAndIncrement();
		return (thread, sequence) -> Ids.unique(run, thread, sequence);
	}

	// Starts every repetition on the same small keyspace: new keys of earlier runs go.
	private void populate() {
		this.admin.flush();
		for (String id : this.replayIds) {
			this.payments.charge(id);
		}
	}

	// The floor replays what the starter stored, and the other way round, byte for byte.
	private void checkBothSidesAgree() {
		populate();
		byte[] replayed = this.floor.call(this.replayIds[0]);
		if (!Arrays.equals(replayed, this.body)) {
			throw new IllegalStateException("The floor replays " + new String(replayed, StandardCharsets.UTF_8)
					+ " but the starter stores " + new String(this.body, StandardCharsets.UTF_8));
		}
		String id = Ids.unique(0, 0, 1);
		this.floor.call(id);
		if (!Receipt.settled(this.replayIds[0]).equals(this.payments.charge(id))) {
			throw new IllegalStateException("The starter does not replay what the floor stored");
		}
	}

	private static OperationSettings settings(IdempotentOperationSource operations) {
		return operations.getOperations()
			.stream()
			.filter((operation) -> operation.name().equals(Payments.OPERATION))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("Operation " + Payments.OPERATION + " was not resolved"))
			.operation()
			.settings();
	}

	private static void log(String format, Object... args) {
		System.err.println("[harness] " + String.format(Locale.ROOT, format, args));
	}

}
