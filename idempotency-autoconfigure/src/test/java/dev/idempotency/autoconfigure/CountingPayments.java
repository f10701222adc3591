package dev.idempotency.autoconfigure;

import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.Idempotent;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * An idempotent bean that counts its runs, for the tests of applications that lack a
 * module or a library.
 */
class CountingPayments {

	private final AtomicInteger runs = new AtomicInteger();

	@Idempotent(key = "#id")
	public Receipt pay(String id) {
		return new Receipt(id, this.runs.incrementAndGet());
	}

	public int runs() {
		return this.runs.get();
	}

	record Receipt(String id, int run) {
	}

	@Configuration(proxyBeanMethods = false)
	static class PaymentsConfiguration {

		@Bean
		CountingPayments payments() {
			return new CountingPayments();
		}

	}

}
