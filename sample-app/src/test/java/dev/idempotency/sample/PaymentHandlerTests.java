package dev.idempotency.sample;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.AbandonedAttempt;
import dev.idempotency.test.ConcurrentCalls;
import dev.idempotency.test.StoreScenarios;
import dev.idempotency.test.autoconfigure.AutoConfigureIdempotency;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The event handler tested with {@code idempotency-test}, as an application tests its own
 * idempotent code.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE)
@AutoConfigureIdempotency
class PaymentHandlerTests {

	@Autowired
	private PaymentHandler handler;

	@Autowired
	private Ledger ledger;

	@Autowired
	private IdempotencyStore store;

	@Test
	void deliveriesOfOneEventArrivingTogetherChargeOnce() {
		PaymentEvent event = new PaymentEvent(UUID.randomUUID().toString(), "alice", 1250);
		long before = this.ledger.entries();
		ConcurrentCalls.run(8, () -> this.handler.handle(event))
			.assertExecutedOnce(() -> (int) (this.ledger.entries() - before));
	}

	@Test
	void aDeliveryAfterACrashChargesOnceAndTheCrashedAttemptCannotCompleteAnyMore() {
		PaymentEvent event = new PaymentEvent(UUID.randomUUID().toString(), "bob", 990);
		AbandonedAttempt crashed = StoreScenarios.crashedAttempt(this.store, "payments.charge", event.id());
		long before = this.ledger.entries();
		Receipt receipt = this.handler.handle(event);
		assertThat(this.ledger.entries() - before).isEqualTo(1);
		assertThat(crashed.complete()).isFalse();
		assertThat(this.handler.handle(event)).isEqualTo(receipt);
		assertThat(this.ledger.entries() - before).isEqualTo(1);
	}

}
