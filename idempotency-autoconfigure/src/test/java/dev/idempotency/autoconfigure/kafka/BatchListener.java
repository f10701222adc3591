package dev.idempotency.autoconfigure.kafka;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.BatchOutcome;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.kafka.IdempotencyKafkaBatches;

import org.springframework.kafka.annotation.KafkaListener;

/**
 * A batch listener that hands each batch to {@code executeAll}, as the README shows,
 * counting deliveries and effects in the ledger.
 */
class BatchListener {

	static final String BATCHES = "batches";

	static final String BATCHES_DLT = "batches-dlt";

	static final String ASYNC_BATCHES = "async-batches";

	static final String OPERATION = "kafka.batches";

	private static final JsonMapper json = JsonMapper.shared();

	private final IdempotentExecutor executor;

	private final Ledger ledger;

	private final AtomicInteger largestBatch = new AtomicInteger();

	private final List<ConsumerRecord<String, String>> deadLetters = new CopyOnWriteArrayList<>();

	BatchListener(IdempotentExecutor executor, Ledger ledger) {
		this.executor = executor;
		this.ledger = ledger;
	}

	@KafkaListener(id = BATCHES, topics = BATCHES, batch = "true", autoStartup = "false")
	public void onBatch(List<ConsumerRecord<String, String>> records) {
		this.largestBatch.accumulateAndGet(records.size(), Math::max);
		records.forEach((record) -> this.ledger.delivered(BATCHES, record.partition(), record.offset()));
		List<PaymentEvent> events = records.stream()
			.map((record) -> json.readValue(record.value(), PaymentEvent.class))
			.toList();
		List<BatchOutcome<PaymentEvent, String>> outcomes = this.executor.executeAll(OPERATION, events,
				PaymentEvent::id, (event) -> event, String.class, this::charge);
		IdempotencyKafkaBatches.throwIfUnfinished(OPERATION, outcomes);
	}

	// The same work on another thread, its future handed to the container
	@KafkaListener(id = ASYNC_BATCHES, topics = ASYNC_BATCHES, batch = "true", autoStartup = "false")
	public CompletableFuture<Void> onAsyncBatch(List<ConsumerRecord<String, String>> records) {
		records.forEach((record) -> this.ledger.delivered(ASYNC_BATCHES, record.partition(), record.offset()));
		List<PaymentEvent> events = records.stream()
			.map((record) -> json.readValue(record.value(), PaymentEvent.class))
			.toList();
		return CompletableFuture.runAsync(() -> IdempotencyKafkaBatches.throwIfUnfinished(OPERATION, this.executor
			.executeAll(OPERATION, events, PaymentEvent::id, (event) -> event, String.class, (event) -> {
				this.ledger.effect(ASYNC_BATCHES, event.id());
				return "receipt-" + event.id();
			})));
	}

	@KafkaListener(id = BATCHES_DLT, topics = BATCHES_DLT)
	public void deadLetters(ConsumerRecord<String, String> record) {
		this.deadLetters.add(record);
	}

	private String charge(PaymentEvent event) {
		this.ledger.effect(BATCHES, event.id());
		return "receipt-" + event.id();
	}

	int largestBatch() {
		return this.largestBatch.get();
	}

	List<ConsumerRecord<String, String>> deadLetters() {
		return this.deadLetters;
	}

}
