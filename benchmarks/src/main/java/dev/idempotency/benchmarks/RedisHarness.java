package dev.idempotency.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.management.OperatingSystemMXBean;

import dev.idempotency.IdempotentExecutor;
import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.benchmarks.Contender.Protocol;
import dev.idempotency.benchmarks.Contender.Reference;
import dev.idempotency.benchmarks.LoadRun.IdSource;
import dev.idempotency.benchmarks.LoadRun.Sample;
import dev.idempotency.codec.ResultCodec;
import dev.idempotency.engine.OperationSettings;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.ResolvableType;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Measures the starter against the other sides (floors of its protocol done by hand, and
 * peer libraries: see {@link Side}) on a {@code redis-server} of its own, for new keys
 * and for replays, at several caller thread counts, all interleaved in one run, and
 * writes a Markdown table of throughput, latency and their ratios, with the Redis memory
 * of a record.
 * <p>
 * Run from the project root with
 * {@code ./mvnw -q -Pbenchmarks -pl benchmarks test-compile exec:exec}; options go in
 * {@code -Dharness.args="..."} (see {@link HarnessOptions#USAGE}).
 */
public final class RedisHarness {

	private static final int REPLAY_KEYS = 1024;

	private static final int MEMORY_RECORDS = 20_000;

	private static final int WARMUP_THREADS = 8;

	// Each repetition of a case is cut into slices, interleaved with the other sides'
	private static final int SLICES = 6;

	private static final OperatingSystemMXBean PROCESS = (OperatingSystemMXBean) ManagementFactory
		.getOperatingSystemMXBean();

	private final HarnessOptions options;

	private final Payments payments;

	private final RedisAdmin admin;

	private final String keyPrefix;

	private final byte[] body;

	private final List<Contender> contenders;

	private final ReplayKeys replays = new ReplayKeys(REPLAY_KEYS);

	private final AtomicInteger runs = new AtomicInteger(1);

	private final IdempotentExecutor executor;

	private RedisHarness(ConfigurableApplicationContext application, HarnessOptions options, Payments payments,
			String keyPrefix, byte[] body, List<Contender> contenders) {
		this.options = options;
		this.payments = payments;
		this.admin = new RedisAdmin(application.getBean(RedisConnectionFactory.class));
		this.executor = application.getBean(IdempotentExecutor.class);
		this.keyPrefix = keyPrefix;
		this.body = body;
		this.contenders = contenders;
	}

	public static void main(String[] args) throws Exception {
		HarnessOptions options = HarnessOptions.parse(args);
		String loadBefore = MachineInfo.loadAverage();
		boolean acks = options.sides().contains(Side.STARTER_ACKS);
		// try-with-resources skips the resources that are null
		try (RedisServer redis = RedisServer.start();
				RedisServer replica = acks ? RedisServer.startReplicaOf(redis) : null;
				ConfigurableApplicationContext application = BenchmarkApplication.onRedis(redis.port());
				ConfigurableApplicationContext acknowledged = acks
						? BenchmarkApplication.onRedis(redis.port(), Map.of("idempotency.redis.replica-acks", "1"))
						: null) {
			Payments payments = application.getBean(Payments.class);
			String keyPrefix = application.getEnvironment().getProperty("idempotency.key-prefix", "idempotency:")
					+ Payments.OPERATION + ":";
			// What the starter stores for the first replay key, byte for byte
			byte[] body = application.getBean(ResultCodec.class)
				.forType(ResolvableType.forClass(Receipt.class))
				.encode(Receipt.settled(Ids.replays(1)[0]));
			Payments acknowledgedPayments = (acknowledged != null) ? acknowledged.getBean(Payments.class) : null;
			try (Contenders contenders = Contenders.create(options.sides(), payments, acknowledgedPayments,
					application.getBean(RedisConnectionFactory.class), redis.port(), keyPrefix,
					settings(application.getBean(IdempotentOperationSource.class)), body)) {
				new RedisHarness(application, options, payments, keyPrefix, body, contenders.all()).run(loadBefore);
			}
		}
	}

	private void run(String loadBefore) throws Exception {
		MachineInfo machine = MachineInfo.describe(this.admin);
		log("%s; %s; redis %s; %d CPUs; load %s", machine.cpuModel(), machine.jdk(), machine.redis(), machine.cpus(),
				loadBefore);
		checkEverySide();
		log("warming up: %s per case at %d threads", this.options.warmup(), WARMUP_THREADS);
		for (Workload workload : perCallWorkloads()) {
			populate();
			for (Contender contender : this.contenders) {
				measure(workload, contender, WARMUP_THREADS, this.options.warmup());
			}
		}
		Results results = new Results();
		Duration slice = this.options.measurement().dividedBy(SLICES);
		for (int threads : this.options.threads()) {
			for (int repetition = 0; repetition < this.options.repetitions(); repetition++) {
				populate();
				for (Workload workload : perCallWorkloads()) {
					Map<Side, Sample> samples = new EnumMap<>(Side.class);
					for (int i = 0; i < SLICES; i++) {
						for (Contender contender : turns(repetition + i)) {
							samples.merge(contender.side(), measure(workload, contender, threads, slice), Sample::plus);
						}
					}
					for (Map.Entry<Side, Sample> measured : samples.entrySet()) {
						Side side = measured.getKey();
						Sample sample = measured.getValue();
						results.add(threads, workload, side, sample);
						log("%2d threads, rep %d/%d, %-8s %-18s %,9.0f calls/s  p50 %5.0f µs  p99 %6.0f µs  "
								+ "CPU/call callers %5.1f µs, JVM %5.1f µs, Redis %5.1f µs", threads, repetition + 1,
								this.options.repetitions(), workload.label(), side.label(), sample.throughput(),
								sample.latency().getValueAtPercentile(50) / 1000.0,
								sample.latency().getValueAtPercentile(99) / 1000.0, sample.callerCpuMicrosPerCall(),
								sample.jvmCpuMicrosPerCall(), sample.redisCpuMicrosPerCall());
					}
				}
			}
		}
		RecordMemory memory = RecordMemory.measure(this.admin, this.payments, this.keyPrefix, this.body.length,
				MEMORY_RECORDS);
		Map<Side, Protocol> protocols = new LinkedHashMap<>();
		this.contenders.forEach((contender) -> protocols.put(contender.side(), contender.protocol()));
		List<BatchComparison.Row> batches = measureBatches();
		String report = Report.markdown(this.options, machine, loadBefore, MachineInfo.loadAverage(), protocols,
				results, memory);
		if (!batches.isEmpty()) {
			report += "\n" + BatchComparison.markdown(batches);
		}
		Path output = this.options.output().toAbsolutePath();
		Files.createDirectories(output.getParent());
		Files.writeString(output, report);
		System.out.println(report);
		log("written to %s", output);
	}

	private List<Workload> perCallWorkloads() {
		return this.options.workloads().stream().filter(Workload::isPerCall).toList();
	}

	// Batches through the starter's executor against the per-call floor on raw Lettuce,
	// when both sides are chosen
	private List<BatchComparison.Row> measureBatches() {
		Contender floor = this.contenders.stream()
			.filter((contender) -> contender.side() == Side.LETTUCE)
			.findFirst()
			.orElse(null);
		if (!this.options.workloads().contains(Workload.BATCHES) || floor == null
				|| !this.options.sides().contains(Side.STARTER)) {
			return List.of();
		}
		return new BatchComparison(this.executor, floor, this.runs::getAndIncrement, this.admin::cpuNanos)
			.measure(this.options, this::populate);
	}

	// Who goes first rotates by one every turn, so that no side always follows another;
	// with two sides this is the ABBA order of the first harness
	private List<Contender> turns(int turn) {
		List<Contender> order = new ArrayList<>(this.contenders);
		Collections.rotate(order, -(turn % order.size()));
		return order;
	}

	private Sample measure(Workload workload, Contender contender, int threads, Duration duration) {
		IdSource ids = ids(workload);
		long jvmCpu = PROCESS.getProcessCpuTime();
		long redisCpu = this.admin.cpuNanos();
		Sample sample = LoadRun.run(contender::call, ids, threads, duration);
		return sample.withCpu(PROCESS.getProcessCpuTime() - jvmCpu, this.admin.cpuNanos() - redisCpu);
	}

	private IdSource ids(Workload workload) {
		if (workload == Workload.REPLAYS) {
			return this.replays.cycle();
		}
		int run = this.runs.getAndIncrement();
		return (thread, sequence) -> Ids.unique(run, thread, sequence);
	}

	// Starts every repetition on the same small keyspace: new keys of earlier runs go,
	// and each side completes the replay keys in its own keyspace (the starter first:
	// the floors then replay its records).
	private void populate() {
		this.admin.flush();
		// The reference of the checks, even when the starter is not measured
		this.payments.charge(this.replays.first());
		for (Contender contender : this.contenders) {
			this.replays.completeThrough(contender);
		}
	}

	// Each side does what it promises, once: the floors and the starter read each other's
	// records byte for byte, the peers detect a duplicate.
	private void checkEverySide() throws Exception {
		populate();
		Reference reference = new Reference(this.payments, this.replays.first(), this.body);
		for (Contender contender : this.contenders) {
			contender.check(reference);
			log("checked %s", contender.side().label());
		}
	}

	static OperationSettings settings(IdempotentOperationSource operations) {
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
