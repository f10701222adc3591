package com.example.payments;

import org.junit.jupiter.api.Test;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.AbandonedAttempt;
import dev.idempotency.test.ConcurrentCalls;
import dev.idempotency.test.StoreScenarios;
import dev.idempotency.test.autoconfigure.AutoConfigureIdempotency;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest
@AutoConfigureIdempotency
class PaymentsTests {

	@Autowired
	Payments payments;

	@Autowired
	Gateway gateway;

	@Autowired
	IdempotencyStore store;

	@Test
	void duplicatesArrivingTogetherChargeOnce() {
		ConcurrentCalls<Receipt> calls = ConcurrentCalls.run(8, () -> this.payments.charge("order-1", 1250));
		calls.assertExecutedOnce(() -> this.gateway.charges("order-1"));
	}

	@Test
	void aCrashedChargeIsTakenOverAndItsZombieIsRefused() {
		AbandonedAttempt crashed = StoreScenarios.crashedAttempt(this.store, "Payments.charge", "order-2");
		Receipt receipt = this.payments.charge("order-2", 1250);
		assertThat(receipt.fence()).isEqualTo(crashed.fence() + 1);
		assertThat(this.gateway.charges("order-2")).isEqualTo(1);
		assertThat(crashed.complete()).isFalse();
		assertThat(this.payments.charge("order-2", 1250)).isEqualTo(receipt);
	}

}
