package dev.idempotency.autoconfigure.health;

import dev.idempotency.actuate.health.IdempotencyHealthIndicator;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.store.IdempotencyStore;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link IdempotencyHealthIndicator}, contributed to health as
 * {@code idempotency} and switched off with
 * {@code management.health.idempotency.enabled=false}.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnSingleCandidate(IdempotencyStore.class)
@ConditionalOnEnabledHealthIndicator("idempotency")
public final class IdempotencyHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = { "idempotencyHealthIndicator", "idempotencyHealthContributor" })
	IdempotencyHealthIndicator idempotencyHealthIndicator(IdempotencyStore store) {
		return new IdempotencyHealthIndicator(store);
	}

}
