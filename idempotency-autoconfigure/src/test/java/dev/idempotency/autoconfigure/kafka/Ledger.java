package dev.idempotency.autoconfigure.kafka;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the test listeners did: side effects by topic and event, deliveries by topic,
 * partition and offset.
 */
class Ledger {

	private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();

	void effect(String topic, String id) {
		this.effects.computeIfAbsent(topic + "/" + id, (key) -> new AtomicInteger()).incrementAndGet();
	}

	int effects(String topic, String id) {
		AtomicInteger count = this.effects.get(topic + "/" + id);
		return (count != null) ? count.get() : 0;
	}

	void delivered(String topic, int partition, long offset) {
		this.deliveries.computeIfAbsent(topic + "-" + partition + "@" + offset, (key) -> new AtomicInteger())
			.incrementAndGet();
	}

	int deliveries(String topic, int partition, long offset) {
		AtomicInteger count = this.deliveries.get(topic + "-" + partition + "@" + offset);
		return (count != null) ? count.get() : 0;
	}

	int deliveries(String topic) {
		return this.deliveries.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().startsWith(topic + "-"))
			.mapToInt((entry) -> entry.getValue().get())
			.sum();
	}

}
