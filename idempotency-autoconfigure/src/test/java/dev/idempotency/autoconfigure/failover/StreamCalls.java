package dev.idempotency.autoconfigure.failover;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

import dev.idempotency.IdempotencyException;
import dev.idempotency.autoconfigure.failover.CallStream.Phase;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;

/**
 * What the calls of a {@link CallStream} got, and the checks made on it once the stream
 * stopped: whether a key's callers got results of different executions, whether the
 * method ran more often than callers were either given its result or told that their call
 * failed, and whether a key whose call returned still has its completed record.
 */
final class StreamCalls {

	private final Map<String, Set<Execution>> results = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> executedAndReturned = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> failedAfterRunning = new ConcurrentHashMap<>();

	private final Map<Phase, Set<String>> keysSucceeded = new EnumMap<>(Phase.class);

	private final Map<Phase, LongAdder> succeeded = new EnumMap<>(Phase.class);

	private final Map<Phase, LongAdder> inProgress = new EnumMap<>(Phase.class);

	private final Map<Phase, Map<String, LongAdder>> failures = new EnumMap<>(Phase.class);

	private final List<Throwable> unexpected = new CopyOnWriteArrayList<>();

	private final Map<String, List<String>> trails = new ConcurrentHashMap<>();

	private final long started = System.nanoTime();

	StreamCalls() {
		for (Phase phase : Phase.values()) {
			this.keysSucceeded.put(phase, ConcurrentHashMap.newKeySet());
			this.succeeded.put(phase, new LongAdder());
			this.inProgress.put(phase, new LongAdder());
			this.failures.put(phase, new ConcurrentHashMap<>());
		}
	}

	void succeeded(Phase phase, String key, Execution execution, boolean ran) {
		this.results.computeIfAbsent(key, (k) -> ConcurrentHashMap.newKeySet()).add(execution);
		if (ran) {
			this.executedAndReturned.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
		}
		this.keysSucceeded.get(phase).add(key);
		this.succeeded.get(phase).increment();
		trail(key, phase + (ran ? " ran and got run " : " got run ") + execution.run());
	}

	void inProgress(Phase phase, String key) {
		this.inProgress.get(phase).increment();
		trail(key, phase + " in progress");
	}

	void failed(Phase phase, String key, IdempotencyException failure, boolean ran) {
		if (ran) {
			this.failedAfterRunning.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
		}
		this.failures.get(phase)
			.computeIfAbsent(failure.getClass().getSimpleName() + (ran ? " after the method ran" : ""),
					(type) -> new LongAdder())
			.increment();
		trail(key, phase + " " + failure.getClass().getSimpleName() + (ran ? " after run" : ""));
	}

	private void trail(String key, String event) {
		this.trails.computeIfAbsent(key, (k) -> new CopyOnWriteArrayList<>())
			.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - this.started) + " ms " + event);
	}

	/**
	 * Describe what every call of some keys got, in the order they returned.
	 */
	String trails(List<String> keys) {
		StringBuilder trails = new StringBuilder();
		keys.stream()
			.limit(10)
			.forEach((key) -> trails.append(key).append(": ").append(this.trails.get(key)).append('\n'));
		return trails.toString();
	}

	void unexpected(Throwable failure) {
		this.unexpected.add(failure);
	}

	List<Throwable> unexpected() {
		return this.unexpected;
	}

	Set<String> keysSucceededIn(Phase phase) {
		return this.keysSucceeded.get(phase);
	}

	long succeededIn(Phase phase) {
		return this.succeeded.get(phase).sum();
	}

	long failedIn(Phase phase) {
		return this.failures.get(phase).values().stream().mapToLong(LongAdder::sum).sum();
	}

	/**
	 * Check what the calls on keys that match got, against what the method did and what
	 * the store holds now: a key whose callers got results of more than one execution got
	 * a wrong result; a key for which the method ran more often than callers were given a
	 * result of it or told that their call failed after it ran had an execution that
	 * nobody heard of; a key whose call returned a result but whose record is not
	 * completed now, or replays another result (the method runs again), lost its record.
	 * Replays that check the record run the method for a key whose record was lost, so
	 * the checks run in this order, once.
	 * @param store the application's store
	 * @param ledger the application's bean
	 * @param keys which keys to check
	 * @return what was found
	 */
	Audit audit(IdempotencyStore store, ExecutionLedger ledger, Predicate<String> keys) {
		List<String> checked = this.results.keySet().stream().filter(keys).sorted().toList();
		List<String> wrong = checked.stream().filter((key) -> this.results.get(key).size() > 1).toList();
		List<String> unannounced = checked.stream()
			.filter((key) -> ledger.runs(key) > this.results.get(key).size() + count(this.failedAfterRunning, key))
			.toList();
		List<String> lostExecutions = new ArrayList<>();
		List<String> lostReplays = new ArrayList<>();
		for (String key : checked) {
			Optional<IdempotencyRecord> record = store.read(new RecordKey(ExecutionLedger.NAME, key));
			Execution replay = (record.isPresent() && record.get().state() == RecordState.COMPLETED)
					? ledger.charge(key) : null;
			if (replay == null || !this.results.get(key).contains(replay)) {
				(this.executedAndReturned.containsKey(key) ? lostExecutions : lostReplays).add(key);
				trail(key,
						"audit found "
								+ record.map((found) -> found.state() + " fence " + found.fence()).orElse("no record")
								+ ((replay != null) ? ", replayed run " + replay.run() : ""));
			}
		}
		return new Audit(checked.size(), wrong, unannounced, lostExecutions, lostReplays);
	}

	private static int count(Map<String, AtomicInteger> counts, String key) {
		AtomicInteger count = counts.get(key);
		return (count != null) ? count.get() : 0;
	}

	/**
	 * Describe the calls by phase, for the test's output.
	 */
	String summary() {
		StringBuilder summary = new StringBuilder();
		for (Phase phase : Phase.values()) {
			Map<String, Long> failed = new TreeMap<>();
			this.failures.get(phase).forEach((type, count) -> failed.put(type, count.sum()));
			summary.append(String.format("%-8s returned %6d, in progress %5d, failed %s%n", phase,
					this.succeeded.get(phase).sum(), this.inProgress.get(phase).sum(), failed));
		}
		return summary.toString();
	}

	/**
	 * What {@link #audit} found, by key.
	 *
	 * @param keys how many keys were checked: those that match and whose calls returned a
	 * result
	 * @param wrongResults keys whose callers got results of more than one execution
	 * @param unannouncedRuns keys for which the method ran more often than callers heard
	 * of
	 * @param lostExecutions keys whose record was lost although a call that ran the
	 * method returned its result
	 * @param lostReplays keys whose record was lost, whose calls returned only replays
	 */
	record Audit(int keys, List<String> wrongResults, List<String> unannouncedRuns, List<String> lostExecutions,
			List<String> lostReplays) {

		String summary() {
			return String.format(
					"%d keys with results: %d with wrong results, %d with unannounced runs, %d lost "
							+ "records whose execution returned, %d lost records that were only replayed",
					this.keys, this.wrongResults.size(), this.unannouncedRuns.size(), this.lostExecutions.size(),
					this.lostReplays.size());
		}

	}

}
