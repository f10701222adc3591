package com.example.payments;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

/**
 * The effect that must happen once: a card charge, counted per order.
 */
@Component
public class Gateway {

	private final Map<String, AtomicInteger> charges = new ConcurrentHashMap<>();

	public void charge(String orderId, long amountCents) {
		this.charges.computeIfAbsent(orderId, (id) -> new AtomicInteger()).incrementAndGet();
	}

	public int charges(String orderId) {
		AtomicInteger charges = this.charges.get(orderId);
		return (charges != null) ? charges.get() : 0;
	}

}
