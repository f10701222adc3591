package dev.idempotency.autoconfigure.kafka;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.Idempotent;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;

/**
 * The listeners of the tests, one group each, counting every delivery before they call
 * the idempotent work.
 */
class Listeners {

	static final String PAYMENTS = "payments";

	static final String REUSE = "reuse";

	static final String REUSE_DLT = "reuse-dlt";

	static final String HEADERS = "headers";

	static final String OFFSETS = "offsets";

	static final String OFFSET_HEADERS = "offset-headers";

	static final String RESTARTS = "restarts";

	static final String REBALANCE = "rebalance";

	static final String CRASHES = "crashes";

	static final String BATCHES = "batches";

	static final String RECORD_ACKS = "record-acks";

	static final String COUNT_ACKS = "count-acks";

	static final String TIME_ACKS = "time-acks";

	static final String MANUAL_IMMEDIATE_ACKS = "manual-immediate-acks";

	static final String EVENT_ID_HEADER = "event-id";

	private final Ledger ledger;

	private final Charges charges;

	private final Set<String> failAfterEffect = ConcurrentHashMap.newKeySet();

	private final List<ConsumerRecord<String, String>> deadLetters = new CopyOnWriteArrayList<>();

	private volatile boolean acknowledging;

	Listeners(Ledger ledger, Charges charges) {
		this.ledger = ledger;
		this.charges = charges;
	}

	@KafkaListener(id = PAYMENTS, topics = PAYMENTS, concurrency = "3")
	public void payments(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
			@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
		this.ledger.delivered(PAYMENTS, partition, offset);
		this.charges.charge(PAYMENTS, event);
	}

	@KafkaListener(id = REUSE, topics = REUSE)
	public void reuse(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
			@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
		this.ledger.delivered(REUSE, partition, offset);
		this.charges.charge(REUSE, event);
	}

	@KafkaListener(id = REUSE_DLT, topics = REUSE_DLT)
	public void deadLetters(ConsumerRecord<String, String> record) {
		this.deadLetters.add(record);
	}

	// The key is the header alone: the same header with another payload is a duplicate
	@KafkaListener(id = HEADERS, topics = HEADERS)
	@Idempotent(name = "kafka.headers", key = "#eventId")
	public void headers(@Payload PaymentEvent event, @Header(EVENT_ID_HEADER) String eventId) {
		this.ledger.effect(HEADERS, eventId);
	}

	@KafkaListener(id = OFFSETS, topics = OFFSETS)
	public void offsets(ConsumerRecord<String, String> record, @Payload PaymentEvent event) {
		this.ledger.delivered(OFFSETS, record.partition(), record.offset());
		this.charges.chargeRecord(record, event);
		if (this.failAfterEffect.remove(event.id())) {
			throw new IllegalStateException("Failed after the effect, before the listener returned");
		}
	}

	@KafkaListener(id = OFFSET_HEADERS, topics = OFFSET_HEADERS)
	public void offsetHeaders(@Payload PaymentEvent event, @Header(KafkaHeaders.RECEIVED_TOPIC) String topic,
			@Header(KafkaHeaders.RECEIVED_PARTITION) int partition, @Header(KafkaHeaders.OFFSET) long offset) {
		this.ledger.delivered(OFFSET_HEADERS, partition, offset);
		this.charges.chargeAt(topic, partition, offset, event);
		if (this.failAfterEffect.remove(event.id())) {
			throw new IllegalStateException("Failed after the effect, before the listener returned");
		}
	}

	// Acknowledges only when told to: until then nothing is committed
	// (containerPostProcessor)
	@KafkaListener(id = RESTARTS, topics = RESTARTS, concurrency = "3", containerPostProcessor = "manualAcks")
	public void restarts(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
			@Header(KafkaHeaders.OFFSET) long offset, Acknowledgment acknowledgment) throws InterruptedException {
		this.ledger.delivered(RESTARTS, partition, offset);
		this.charges.charge(RESTARTS, event);
		if (this.acknowledging) {
			acknowledgment.acknowledge();
		}
	}

	@KafkaListener(id = "rebalance-a", groupId = REBALANCE, topics = REBALANCE, autoStartup = "false")
	public void rebalanceA(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
			@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
		this.ledger.delivered(REBALANCE, partition, offset);
		this.charges.charge(REBALANCE, event);
	}

	@KafkaListener(id = "rebalance-b", groupId = REBALANCE, topics = REBALANCE, autoStartup = "false")
	public void rebalanceB(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
			@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
		this.ledger.delivered(REBALANCE, partition, offset);
		this.charges.charge(REBALANCE, event);
	}

	@KafkaListener(id = CRASHES, topics = CRASHES)
	public void crashes(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
			@Header(KafkaHeaders.OFFSET) long offset) {
		this.ledger.delivered(CRASHES, partition, offset);
		this.charges.chargeAfterCrash(CRASHES, event);
	}

	// A batch listener that lets our exceptions through as they are, without naming the
	// record in a BatchListenerFailedException
	@KafkaListener(id = BATCHES, topics = BATCHES, batch = "true")
	public void batches(List<ConsumerRecord<String, String>> records) throws InterruptedException {
		for (ConsumerRecord<String, String> record : records) {
			this.ledger.delivered(BATCHES, record.partition(), record.offset());
			this.charges.charge(BATCHES, JsonMapper.shared().readValue(record.value(), PaymentEvent.class));
		}
	}

	@KafkaListener(id = RECORD_ACKS, topics = RECORD_ACKS, containerPostProcessor = "recordAcks")
	public void recordAcks(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
			@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
		this.ledger.delivered(RECORD_ACKS, partition, offset);
		this.charges.charge(RECORD_ACKS, event);
	}

	@KafkaListener(id = COUNT_ACKS, topics = COUNT_ACKS, containerPostProcessor = "countAcks")
	public void countAcks(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
			@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
		this.ledger.delivered(COUNT_ACKS, partition, offset);
		this.charges.charge(COUNT_ACKS, event);
	}

	@KafkaListener(id = TIME_ACKS, topics = TIME_ACKS, containerPostProcessor = "timeAcks")
	public void timeAcks(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
			@Header(KafkaHeaders.OFFSET) long offset) throws InterruptedException {
		this.ledger.delivered(TIME_ACKS, partition, offset);
		this.charges.charge(TIME_ACKS, event);
	}

	@KafkaListener(id = MANUAL_IMMEDIATE_ACKS, topics = MANUAL_IMMEDIATE_ACKS,
			containerPostProcessor = "manualImmediateAcks")
	public void manualImmediateAcks(PaymentEvent event, @Header(KafkaHeaders.RECEIVED_PARTITION) int partition,
			@Header(KafkaHeaders.OFFSET) long offset, Acknowledgment acknowledgment) throws InterruptedException {
		this.ledger.delivered(MANUAL_IMMEDIATE_ACKS, partition, offset);
		this.charges.charge(MANUAL_IMMEDIATE_ACKS, event);
		acknowledgment.acknowledge();
	}

	void failAfterEffect(String id) {
		this.failAfterEffect.add(id);
	}

	List<ConsumerRecord<String, String>> deadLetters() {
		return this.deadLetters;
	}

	void acknowledging(boolean acknowledging) {
		this.acknowledging = acknowledging;
	}

}
