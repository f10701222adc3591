package dev.idempotency.autoconfigure.observation;

import io.micrometer.observation.ObservationRegistry;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.engine.IdempotencyObserver;
import dev.idempotency.observation.IdempotencyObservationConvention;
import dev.idempotency.observation.ObservationIdempotencyObserver;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration that observes every idempotent call with Micrometer's
 * {@link ObservationRegistry}, so that tracing shows the call and its outcome. Applies
 * when there is an {@link ObservationRegistry} bean, so it comes after Spring Boot's
 * observation auto-configuration (named, not referenced, to need no compile-time
 * dependency on it). An {@link IdempotencyObservationConvention} bean replaces the
 * default convention.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
public final class IdempotencyObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(IdempotencyObserver.class)
	ObservationIdempotencyObserver idempotencyObserver(ObservationRegistry registry,
			ObjectProvider<IdempotencyObservationConvention> convention) {
		return new ObservationIdempotencyObserver(registry, convention.getIfUnique());
	}

}
