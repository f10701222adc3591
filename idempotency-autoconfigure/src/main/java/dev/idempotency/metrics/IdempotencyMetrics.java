package dev.idempotency.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.idempotency.engine.IdempotencyListener;
import dev.idempotency.engine.Outcome;
import dev.idempotency.engine.StoreOperation;

import org.springframework.util.Assert;

/**
 * Publishes the outcomes of idempotent calls and the durations of store transitions as
 * Micrometer meters named by {@link IdempotencyMetricNames}.
 * <p>
 * Meters are registered once per operation name (every outcome at once, so that each
 * shows zero before it first happens) and per store type, then kept in arrays indexed by
 * enum ordinal: a call costs a map lookup and an increment, never a registry lookup.
 * Operation names become tag values, so they must come from a bounded set: annotated
 * methods and configured names are, but {@code IdempotentExecutor} names built from
 * request data would not be.
 */
public final class IdempotencyMetrics implements IdempotencyListener {

	private static final Outcome[] OUTCOMES = Outcome.values();

	private static final StoreOperation[] STORE_OPERATIONS = StoreOperation.values();

	private final MeterRegistry registry;

	private final Map<String, Counter[]> invocations = new ConcurrentHashMap<>();

	private final Map<String, Timer[]> storeOperations = new ConcurrentHashMap<>();

	/**
	 * Create the meters' publisher.
	 * @param registry the registry to register meters in
	 */
	public IdempotencyMetrics(MeterRegistry registry) {
		Assert.notNull(registry, "'registry' must not be null");
		this.registry = registry;
	}

	/**
	 * Register the counters of an operation, every outcome at zero, so that dashboards
	 * show the operation before its first call. Does nothing if they exist.
	 * @param name the operation name
	 */
	public void registerOperation(String name) {
		Assert.hasText(name, "'name' must not be empty");
		counters(name);
	}

	/**
	 * Register the timers of a store, every transition and result at zero. Does nothing
	 * if they exist.
	 * @param store the store type, such as {@code redis}
	 */
	public void registerStore(String store) {
		Assert.hasText(store, "'store' must not be empty");
		timers(store);
	}

	@Override
	public void onOutcome(String name, Outcome outcome) {
		counters(name)[outcome.ordinal()].increment();
	}

	@Override
	public void onStoreOperation(StoreOperation operation, String store, long nanos, boolean succeeded) {
		timers(store)[timerIndex(operation, succeeded)].record(nanos, TimeUnit.NANOSECONDS);
	}

	private Counter[] counters(String name) {
		// get() first: computeIfAbsent may lock the bin even when the key is present.
		Counter[] counters = this.invocations.get(name);
		return (counters != null) ? counters : this.invocations.computeIfAbsent(name, this::createCounters);
	}

	private Counter[] createCounters(String name) {
		Counter[] counters = new Counter[OUTCOMES.length];
		for (Outcome outcome : OUTCOMES) {
			counters[outcome.ordinal()] = Counter.builder(IdempotencyMetricNames.INVOCATIONS)
				.description("Idempotent calls by operation and outcome")
				.tag(IdempotencyMetricNames.NAME, name)
				.tag(IdempotencyMetricNames.OUTCOME, outcome.tag())
				.register(this.registry);
		}
		return counters;
	}

	private Timer[] timers(String store) {
		Timer[] timers = this.storeOperations.get(store);
		return (timers != null) ? timers : this.storeOperations.computeIfAbsent(store, this::createTimers);
	}

	private Timer[] createTimers(String store) {
		Timer[] timers = new Timer[STORE_OPERATIONS.length * 2];
		for (StoreOperation operation : STORE_OPERATIONS) {
			timers[timerIndex(operation, true)] = createTimer(store, operation, IdempotencyMetricNames.SUCCESS);
			timers[timerIndex(operation, false)] = createTimer(store, operation, IdempotencyMetricNames.ERROR);
		}
		return timers;
	}

	private Timer createTimer(String store, StoreOperation operation, String result) {
		return Timer.builder(IdempotencyMetricNames.STORE_OPERATIONS)
			.description("Transitions of the idempotency store")
			.tag(IdempotencyMetricNames.OPERATION, operation.tag())
			.tag(IdempotencyMetricNames.STORE, store)
			.tag(IdempotencyMetricNames.RESULT, result)
			.register(this.registry);
	}

	private static int timerIndex(StoreOperation operation, boolean succeeded) {
		return operation.ordinal() * 2 + (succeeded ? 0 : 1);
	}

}
