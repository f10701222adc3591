package dev.idempotency.sample.demo;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import dev.idempotency.engine.IdempotencyListener;
import dev.idempotency.engine.Outcome;

/**
 * Counts how idempotent calls end, per operation: the listener SPI that metrics are built
 * on, used here to count replays and conflicts.
 */
class OutcomeCounter implements IdempotencyListener {

	private final Map<Count, LongAdder> counts = new ConcurrentHashMap<>();

	@Override
	public void onOutcome(String name, Outcome outcome) {
		this.counts.computeIfAbsent(new Count(name, outcome), (count) -> new LongAdder()).increment();
	}

	long count(String name, Outcome outcome) {
		LongAdder count = this.counts.get(new Count(name, outcome));
		return (count != null) ? count.sum() : 0;
	}

	private record Count(String name, Outcome outcome) {

	}

}
