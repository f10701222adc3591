package dev.idempotency.autoconfigure.kafka;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import reactor.core.publisher.Mono;

import dev.idempotency.Idempotent;

import org.springframework.kafka.annotation.KafkaListener;

/**
 * Listeners that hand their container an asynchronous result, one group each, in every
 * shape an application writes: the future of an idempotent method, or an idempotent
 * listener returning a {@link CompletableFuture}, a {@link CompletionStage} or a
 * {@link Mono}. Two consumers each, so that a duplicate on the second partition meets the
 * first attempt held on the first. Deliveries are counted by the record interceptor of
 * the test.
 */
class AsyncListeners {

	static final String FUTURE = "async-future";

	static final String IDEMPOTENT_FUTURE = "async-idempotent-future";

	static final String IDEMPOTENT_STAGE = "async-idempotent-stage";

	static final String IDEMPOTENT_MONO = "async-idempotent-mono";

	static final String OUTAGE = "async-outage";

	static final String REUSE_DLT = "async-reuse-dlt";

	static final String NO_FUTURE = "async-no-future";

	static final String NO_MONO = "async-no-mono";

	private final AsyncCharges charges;

	private final List<ConsumerRecord<String, String>> deadLetters = new CopyOnWriteArrayList<>();

	AsyncListeners(AsyncCharges charges) {
		this.charges = charges;
	}

	@KafkaListener(id = FUTURE, topics = FUTURE, concurrency = "2")
	public CompletableFuture<String> future(PaymentEvent event) {
		return this.charges.charge(FUTURE, event);
	}

	@KafkaListener(id = IDEMPOTENT_FUTURE, topics = IDEMPOTENT_FUTURE, concurrency = "2")
	@Idempotent(name = "kafka.async-future", key = "#event.id", payload = "#event")
	public CompletableFuture<String> idempotentFuture(PaymentEvent event) {
		return CompletableFuture.supplyAsync(() -> this.charges.work(IDEMPOTENT_FUTURE, event),
				this.charges.executor());
	}

	@KafkaListener(id = IDEMPOTENT_STAGE, topics = IDEMPOTENT_STAGE, concurrency = "2")
	@Idempotent(name = "kafka.async-stage", key = "#event.id", payload = "#event")
	public CompletionStage<String> idempotentStage(PaymentEvent event) {
		return CompletableFuture.supplyAsync(() -> this.charges.work(IDEMPOTENT_STAGE, event), this.charges.executor());
	}

	@KafkaListener(id = IDEMPOTENT_MONO, topics = IDEMPOTENT_MONO, concurrency = "2")
	@Idempotent(name = "kafka.async-mono", key = "#event.id", payload = "#event")
	public Mono<String> idempotentMono(PaymentEvent event) {
		return Mono.fromFuture(() -> CompletableFuture.supplyAsync(() -> this.charges.work(IDEMPOTENT_MONO, event),
				this.charges.executor()));
	}

	@KafkaListener(id = OUTAGE, topics = OUTAGE)
	public CompletableFuture<String> outage(PaymentEvent event) {
		return this.charges.charge(OUTAGE, event);
	}

	// Nothing to charge for an amount of 0: no future at all, as a listener returning a
	// value may return null
	@KafkaListener(id = NO_FUTURE, topics = NO_FUTURE)
	public CompletableFuture<String> noFuture(PaymentEvent event) {
		return (event.amount() != 0) ? this.charges.charge(NO_FUTURE, event) : null;
	}

	@KafkaListener(id = NO_MONO, topics = NO_MONO)
	public Mono<String> noMono(PaymentEvent event) {
		return (event.amount() != 0) ? Mono.fromFuture(() -> this.charges.charge(NO_MONO, event)) : null;
	}

	@KafkaListener(id = REUSE_DLT, topics = { FUTURE + "-dlt", IDEMPOTENT_FUTURE + "-dlt", IDEMPOTENT_STAGE + "-dlt",
			IDEMPOTENT_MONO + "-dlt" })
	public void deadLetters(ConsumerRecord<String, String> record) {
		this.deadLetters.add(record);
	}

	List<ConsumerRecord<String, String>> deadLetters() {
		return this.deadLetters;
	}

}
