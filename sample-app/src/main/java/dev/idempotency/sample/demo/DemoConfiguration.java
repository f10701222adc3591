package dev.idempotency.sample.demo;

import dev.idempotency.sample.Ledger;
import dev.idempotency.sample.PaymentHandler;
import dev.idempotency.store.IdempotencyStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * The demo, active with the {@code demo} profile (which {@code --demo} turns on). The
 * {@link OutcomeCounter} is an ordinary bean: the auto-configuration hands every
 * {@link dev.idempotency.engine.IdempotencyListener} bean to the engine.
 */
@Configuration(proxyBeanMethods = false)
@Profile("demo")
@EnableConfigurationProperties(DemoProperties.class)
class DemoConfiguration {

	@Bean
	OutcomeCounter outcomeCounter() {
		return new OutcomeCounter();
	}

	@Bean
	PaymentDemo paymentDemo(PaymentHandler handler, Ledger ledger, OutcomeCounter outcomeCounter,
			DemoProperties properties, ObjectProvider<IdempotencyStore> store) {
		// No store with idempotency.enabled=false: the demo then shows what goes wrong
		String storeName = store.stream()
			.map((candidate) -> candidate.getClass().getSimpleName())
			.findFirst()
			.orElse("none, idempotency is disabled");
		return new PaymentDemo(handler, ledger, outcomeCounter, properties, storeName);
	}

}
