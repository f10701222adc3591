package dev.idempotency.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;

import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.metrics.IdempotencyMetrics;
import dev.idempotency.store.IdempotencyStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the idempotency meters: {@link IdempotencyMetrics} as a listener
 * of the engine, with the counters of every known operation and the timers of the store
 * registered at startup. Applies when Micrometer is on the classpath and there is a
 * {@link MeterRegistry} bean, so it comes after Spring Boot's metrics auto-configuration
 * (named, not referenced, to need no compile-time dependency on it).
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
public final class IdempotencyMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	IdempotencyMetrics idempotencyMetrics(MeterRegistry registry) {
		return new IdempotencyMetrics(registry);
	}

	// Annotated methods are resolved while their beans are proxied, so only once every
	// singleton exists are they all known; later ones register on their first call.
	@Bean
	SmartInitializingSingleton idempotencyMetricsRegistration(IdempotencyMetrics metrics,
			ObjectProvider<IdempotentOperationSource> operations, ObjectProvider<IdempotencyDefaults> defaults,
			ObjectProvider<IdempotencyStore> store) {
		return () -> {
			operations.ifAvailable((source) -> source.getOperations()
				.forEach((operation) -> metrics.registerOperation(operation.name())));
			defaults.ifAvailable((settings) -> settings.operations().keySet().forEach(metrics::registerOperation));
			store.ifUnique((idempotencyStore) -> metrics.registerStore(idempotencyStore.type()));
		};
	}

}
