package dev.idempotency.autoconfigure.amqp;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts by key (an event's id) that the tests' listeners keep from whichever consumer
 * thread runs them: effects, deliveries, completions.
 */
final class Counts {

	private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

	void add(String key) {
		this.counts.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
	}

	int get(String key) {
		AtomicInteger count = this.counts.get(key);
		return (count != null) ? count.get() : 0;
	}

}
