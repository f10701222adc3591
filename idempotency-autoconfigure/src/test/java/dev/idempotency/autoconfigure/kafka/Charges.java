package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import dev.idempotency.IdempotencyContext;
import dev.idempotency.Idempotent;

/**
 * The idempotent work the test listeners call, each run counted in the ledger.
 */
class Charges {

	static final String OPERATION = "kafka.charges";

	private final Ledger ledger;

	private final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();

	private final Set<String> started = ConcurrentHashMap.newKeySet();

	private final Map<String, Long> fences = new ConcurrentHashMap<>();

	private volatile Duration workTime = Duration.ZERO;

	Charges(Ledger ledger) {
		this.ledger = ledger;
	}

	@Idempotent(name = OPERATION, key = "#event.id", payload = "#event")
	public void charge(String topic, PaymentEvent event) throws InterruptedException {
		this.started.add(event.id());
		CountDownLatch gate = this.gates.get(event.id());
		if (gate != null && !gate.await(30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("Gate of " + event.id() + " never opened");
		}
		if (!this.workTime.isZero()) {
			// Stands for the work itself, so that a rebalance lands while records are in
			// flight
			Thread.sleep(this.workTime.toMillis());
		}
		this.ledger.effect(topic, event.id());
	}

	@Idempotent(name = "kafka.crashes", key = "#event.id", lockTimeout = "3s")
	public void chargeAfterCrash(String topic, PaymentEvent event) {
		this.fences.put(event.id(), IdempotencyContext.current().fence());
		this.ledger.effect(topic, event.id());
	}

	@Idempotent(name = "kafka.offsets", key = "{#record.topic(), #record.partition(), #record.offset()}")
	public void chargeRecord(ConsumerRecord<String, String> record, PaymentEvent event) {
		this.ledger.effect(record.topic(), event.id());
	}

	@Idempotent(name = "kafka.offset-headers", key = "{#topic, #partition, #offset}")
	public void chargeAt(String topic, int partition, long offset, PaymentEvent event) {
		this.ledger.effect(topic, event.id());
	}

	CountDownLatch gate(String id) {
		return this.gates.computeIfAbsent(id, (key) -> new CountDownLatch(1));
	}

	boolean started(String id) {
		return this.started.contains(id);
	}

	Long fence(String id) {
		return this.fences.get(id);
	}

	void workTime(Duration workTime) {
		this.workTime = workTime;
	}

}
