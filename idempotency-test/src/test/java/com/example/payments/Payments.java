package com.example.payments;

import dev.idempotency.IdempotencyContext;
import dev.idempotency.Idempotent;

import org.springframework.stereotype.Service;

@Service
public class Payments {

	private final Gateway gateway;

	Payments(Gateway gateway) {
		this.gateway = gateway;
	}

	@Idempotent(key = "#orderId")
	public Receipt charge(String orderId, long amountCents) {
		this.gateway.charge(orderId, amountCents);
		return new Receipt(orderId, amountCents, IdempotencyContext.current().fence());
	}

}
