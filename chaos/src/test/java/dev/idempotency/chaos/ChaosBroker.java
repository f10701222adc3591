package dev.idempotency.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.test.jdbc.TestDatabase;

/**
 * An at-least-once broker in memory for {@link WorkerProcess workers}: each event is
 * delivered until a worker acknowledges it, again after a {@code NACK}, after its worker
 * died, or when unanswered past a visibility timeout (a frozen worker's events go to
 * another); one delivery in ten is sent to a second worker at once. A worker that dies is
 * replaced.
 */
final class ChaosBroker implements AutoCloseable {

	private static final Duration VISIBILITY = Duration.ofSeconds(4);

	private static final Duration NACK_DELAY = Duration.ofMillis(200);

	private final TestDatabase database;

	private final String leaseTime;

	private final List<WorkerProcess> workers = new CopyOnWriteArrayList<>();

	private final Set<String> published = ConcurrentHashMap.newKeySet();

	private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();

	private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

	private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);

	private volatile boolean closed;

	ChaosBroker(TestDatabase database, String leaseTime) {
		this.database = database;
		this.leaseTime = leaseTime;
		this.scheduler.scheduleWithFixedDelay(this::redeliverInvisible, 250, 250, TimeUnit.MILLISECONDS);
	}

	void start(int workerCount, Duration deadline) throws InterruptedException {
		for (int number = 1; number <= workerCount; number++) {
			startWorker(number);
		}
		long end = System.nanoTime() + deadline.toNanos();
		while (this.workers.stream().filter(WorkerProcess::ready).count() < workerCount) {
			if (System.nanoTime() > end) {
				throw new IllegalStateException("Workers not ready within " + deadline + "; they printed:\n"
						+ String.join("\n", this.workers.stream().map(WorkerProcess::lastLines).toList()));
			}
			TimeUnit.MILLISECONDS.sleep(100);
		}
	}

	void publish(String event) {
		this.published.add(event);
		deliver(event);
		if (ThreadLocalRandom.current().nextInt(10) == 0) {
			count("duplicate deliveries");
			deliver(event);
		}
	}

	/**
	 * Kill a worker with {@code kill -9}; it is replaced.
	 */
	void kill() throws IOException, InterruptedException {
		WorkerProcess worker = anyReady();
		if (worker != null) {
			worker.signal("KILL");
			count("kills");
		}
	}

	/**
	 * Freeze a worker with {@code SIGSTOP} and thaw it after a while, on another thread.
	 */
	void freeze(Duration time) throws IOException, InterruptedException {
		WorkerProcess worker = anyReady();
		if (worker != null) {
			worker.signal("STOP");
			count("freezes");
			this.scheduler.schedule(() -> thaw(worker), time.toMillis(), TimeUnit.MILLISECONDS);
		}
	}

	private void thaw(WorkerProcess worker) {
		try {
			worker.signal("CONT");
		}
		catch (IOException | RuntimeException ex) {
			count("thaws failed");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	boolean awaitAllAcknowledged(Duration deadline) throws InterruptedException {
		long end = System.nanoTime() + deadline.toNanos();
		while (!this.acknowledged.containsAll(this.published)) {
			if (System.nanoTime() > end) {
				return false;
			}
			TimeUnit.MILLISECONDS.sleep(100);
		}
		return true;
	}

	List<String> unacknowledged() {
		return this.published.stream().filter((event) -> !this.acknowledged.contains(event)).sorted().toList();
	}

	Map<String, Integer> counts() {
		Map<String, Integer> counts = new TreeMap<>();
		this.counts.forEach((name, count) -> counts.put(name, count.get()));
		return counts;
	}

	String workersOutput() {
		return String.join("\n", this.workers.stream().map(WorkerProcess::lastLines).toList());
	}

	private void startWorker(int number) {
		try {
			this.workers.add(WorkerProcess.start(number, this.database, this.leaseTime, this::answered, this::exited));
			count("workers started");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void deliver(String event) {
		if (this.closed || this.acknowledged.contains(event)) {
			return;
		}
		WorkerProcess worker = anyReady();
		if (worker == null || !worker.deliver(event)) {
			later(event, NACK_DELAY);
			return;
		}
		count("deliveries");
	}

	private void later(String event, Duration delay) {
		if (!this.closed) {
			this.scheduler.schedule(() -> deliver(event), delay.toMillis(), TimeUnit.MILLISECONDS);
		}
	}

	private void answered(String line) {
		String[] parts = line.split(" ");
		if (parts[0].equals("ACK")) {
			this.acknowledged.add(parts[1]);
			return;
		}
		count("NACK " + ((parts.length > 2) ? parts[2] : ""));
		later(parts[1], NACK_DELAY);
	}

	private void exited(WorkerProcess worker) {
		this.workers.remove(worker);
		if (this.closed) {
			return;
		}
		count("workers died");
		for (String event : new ArrayList<>(worker.unanswered().keySet())) {
			deliver(event);
		}
		this.scheduler.schedule(() -> startWorker(worker.number()), 500, TimeUnit.MILLISECONDS);
	}

	private void redeliverInvisible() {
		long now = System.nanoTime();
		for (WorkerProcess worker : this.workers) {
			worker.unanswered().forEach((event, sent) -> {
				if (now - sent > VISIBILITY.toNanos() && worker.unanswered().remove(event, sent)) {
					count("redeliveries after the visibility timeout");
					deliver(event);
				}
			});
		}
	}

	private WorkerProcess anyReady() {
		List<WorkerProcess> ready = this.workers.stream().filter(WorkerProcess::ready).toList();
		return ready.isEmpty() ? null : ready.get(ThreadLocalRandom.current().nextInt(ready.size()));
	}

	private void count(String name) {
		this.counts.computeIfAbsent(name, (key) -> new AtomicInteger()).incrementAndGet();
	}

	@Override
	public void close() throws InterruptedException {
		this.closed = true;
		this.scheduler.shutdownNow();
		for (WorkerProcess worker : this.workers) {
			thaw(worker);
			if (!worker.stop()) {
				count("workers that did not stop");
			}
		}
	}

}
