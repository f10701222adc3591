package dev.idempotency.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.HdrHistogram.Histogram;

/**
 * A closed loop: {@code threads} callers, each calling again as soon as its call returns,
 * for a fixed time. Calls that return after the deadline are neither counted nor timed.
 */
final class LoadRun {

	private static final long MAX_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(30);

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private LoadRun() {
	}

	/**
	 * Run one case.
	 * @param call the call to make
	 * @param ids the key of each call
	 * @param threads how many callers
	 * @param duration how long
	 * @return calls made, time taken and their latencies
	 * @throws IllegalStateException if a call fails
	 */
	static Sample run(Call call, IdSource ids, int threads, Duration duration) {
		CyclicBarrier start = new CyclicBarrier(threads + 1);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		long[] counts = new long[threads];
		long[] cpu = new long[threads];
		Histogram[] histograms = new Histogram[threads];
		long[] deadline = new long[1];
		List<Thread> callers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int thread = t;
			histograms[t] = new Histogram(MAX_LATENCY_NANOS, 3);
			Thread caller = new Thread(() -> {
				await(start);
				long cpuBefore = THREADS.getCurrentThreadCpuTime();
				long end = deadline[0];
				Histogram histogram = histograms[thread];
				long count = 0;
				try {
					for (long sequence = 0; failure.get() == null; sequence++) {
						String id = ids.id(thread, sequence);
						long before = System.nanoTime();
						call.run(id);
						long after = System.nanoTime();
						if (after > end) {
							break;
						}
						histogram.recordValue(Math.min(after - before, MAX_LATENCY_NANOS));
						count++;
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
				counts[thread] = count;
				cpu[thread] = THREADS.getCurrentThreadCpuTime() - cpuBefore;
			}, "caller-" + t);
			callers.add(caller);
			caller.start();
		}
		long begin = System.nanoTime();
		deadline[0] = begin + duration.toNanos();
		await(start);
		for (Thread caller : callers) {
			join(caller);
		}
		Throwable failed = failure.get();
		if (failed != null) {
			throw new IllegalStateException("A call failed: " + failed, failed);
		}
		Histogram latency = new Histogram(MAX_LATENCY_NANOS, 3);
		long calls = 0;
		long callerCpu = 0;
		for (int t = 0; t < threads; t++) {
			latency.add(histograms[t]);
			calls += counts[t];
			callerCpu += cpu[t];
		}
		return new Sample(calls, duration.toNanos(), latency, callerCpu, 0, 0);
	}

	private static void await(CyclicBarrier barrier) {
		try {
			barrier.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (BrokenBarrierException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void join(Thread thread) {
		try {
			thread.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * One call of a case.
	 */
	@FunctionalInterface
	interface Call {

		void run(String id) throws Exception;

	}

	/**
	 * The key of each call.
	 */
	@FunctionalInterface
	interface IdSource {

		String id(int thread, long sequence);

	}

	/**
	 * What one or more runs of a case measured.
	 *
	 * @param calls calls completed before the deadline
	 * @param nanos how long the runs lasted
	 * @param latency latency of each of those calls, in nanoseconds
	 * @param callerCpuNanos CPU time of the calling threads
	 * @param jvmCpuNanos CPU time of the whole JVM during the runs
	 * @param redisCpuNanos CPU time of the Redis server during the runs
	 */
	record Sample(long calls, long nanos, Histogram latency, long callerCpuNanos, long jvmCpuNanos,
			long redisCpuNanos) {

		double throughput() {
			return this.calls * 1e9 / this.nanos;
		}

		double callerCpuMicrosPerCall() {
			return this.callerCpuNanos / 1000.0 / this.calls;
		}

		double jvmCpuMicrosPerCall() {
			return this.jvmCpuNanos / 1000.0 / this.calls;
		}

		double redisCpuMicrosPerCall() {
			return this.redisCpuNanos / 1000.0 / this.calls;
		}

		Sample withCpu(long jvmCpuNanos, long redisCpuNanos) {
			return new Sample(this.calls, this.nanos, this.latency, this.callerCpuNanos, jvmCpuNanos, redisCpuNanos);
		}

		Sample plus(Sample other) {
			Histogram sum = this.latency.copy();
			sum.add(other.latency);
			return new Sample(this.calls + other.calls, this.nanos + other.nanos, sum,
					this.callerCpuNanos + other.callerCpuNanos, this.jvmCpuNanos + other.jvmCpuNanos,
					this.redisCpuNanos + other.redisCpuNanos);
		}

	}

}
