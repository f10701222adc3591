package dev.idempotency.autoconfigure.failover;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.idempotency.Idempotent;

/**
 * The application's idempotent methods: each execution returns an {@link Execution} of
 * its own and is counted per key, and a thread can tell whether its last call ran the
 * method (a call that failed after it ran).
 */
class ExecutionLedger {

	static final String NAME = "failover.charge";

	static final String HELD = "failover.held";

	static final String KEY_PREFIX = "idempotency:";

	private final Map<String, List<Execution>> executions = new ConcurrentHashMap<>();

	private final ThreadLocal<Boolean> ran = ThreadLocal.withInitial(() -> false);

	@Idempotent(name = NAME, key = "#key")
	public Execution charge(String key) {
		return execute(key);
	}

	/**
	 * Run once the caller's {@code started} is counted down, and return only when
	 * {@code release} is: an attempt in flight.
	 */
	@Idempotent(name = HELD, key = "#key")
	public Execution chargeHeld(String key, CountDownLatch started, CountDownLatch release)
			throws InterruptedException {
		Execution execution = execute(key);
		started.countDown();
		if (!release.await(2, TimeUnit.MINUTES)) {
			throw new IllegalStateException("Never released");
		}
		return execution;
	}

	private Execution execute(String key) {
		this.ran.set(true);
		List<Execution> runs = this.executions.computeIfAbsent(key, (k) -> new CopyOnWriteArrayList<>());
		synchronized (runs) {
			Execution execution = new Execution(key, UUID.randomUUID(), runs.size() + 1);
			runs.add(execution);
			return execution;
		}
	}

	/**
	 * Return how many times the method ran for a key.
	 */
	int runs(String key) {
		List<Execution> runs = this.executions.get(key);
		return (runs != null) ? runs.size() : 0;
	}

	/**
	 * Forget whether this thread's last call ran the method, before the next call.
	 */
	void forgetRan() {
		this.ran.set(false);
	}

	/**
	 * Return whether the method ran on this thread since {@link #forgetRan()}.
	 */
	boolean ran() {
		return this.ran.get();
	}

	/**
	 * Return the Redis key of a record of {@link #NAME} (or {@link #HELD}), whose slot
	 * tells which primary of a cluster holds it.
	 */
	static byte[] redisKey(String name, String key) {
		return (KEY_PREFIX + name + ":" + key).getBytes(StandardCharsets.UTF_8);
	}

}
