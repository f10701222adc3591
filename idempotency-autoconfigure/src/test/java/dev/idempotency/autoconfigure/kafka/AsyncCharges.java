package dev.idempotency.autoconfigure.kafka;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import dev.idempotency.Idempotent;

/**
 * The idempotent work of the asynchronous test listeners: it runs on an executor of its
 * own and completes a future, each run counted in the ledger.
 */
class AsyncCharges {

	private final Ledger ledger;

	private final Executor executor;

	private final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();

	private final Set<String> started = ConcurrentHashMap.newKeySet();

	AsyncCharges(Ledger ledger, Executor executor) {
		this.ledger = ledger;
		this.executor = executor;
	}

	@Idempotent(name = "kafka.async-charges", key = "#event.id", payload = "#event")
	public CompletableFuture<String> charge(String topic, PaymentEvent event) {
		return CompletableFuture.supplyAsync(() -> work(topic, event), this.executor);
	}

	// The work of a listener that is idempotent itself
	String work(String topic, PaymentEvent event) {
		this.started.add(event.id());
		CountDownLatch gate = this.gates.get(event.id());
		try {
			if (gate != null && !gate.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Gate of " + event.id() + " never opened");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted at the gate of " + event.id(), ex);
		}
		this.ledger.effect(topic, event.id());
		return "charged " + event.id();
	}

	Executor executor() {
		return this.executor;
	}

	CountDownLatch gate(String id) {
		return this.gates.computeIfAbsent(id, (key) -> new CountDownLatch(1));
	}

	boolean started(String id) {
		return this.started.contains(id);
	}

}
