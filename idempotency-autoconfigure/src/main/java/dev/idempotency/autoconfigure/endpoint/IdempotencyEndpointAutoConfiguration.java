package dev.idempotency.autoconfigure.endpoint;

import dev.idempotency.actuate.endpoint.IdempotencyEndpoint;
import dev.idempotency.actuate.endpoint.IdempotencyEndpointWebExtension;
import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.engine.IdempotencyEngine;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link IdempotencyEndpoint}, when the application has an
 * idempotency engine and the endpoint is available (for the web, exposed with
 * {@code management.endpoints.web.exposure.include=idempotency}).
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnClass(ConditionalOnAvailableEndpoint.class)
@ConditionalOnSingleCandidate(IdempotencyEngine.class)
@ConditionalOnBean(IdempotentOperationSource.class)
@ConditionalOnAvailableEndpoint(IdempotencyEndpoint.class)
public final class IdempotencyEndpointAutoConfiguration {

	// The key prefix only means something to the store that prefixes its keys with it.
	@Bean
	@ConditionalOnMissingBean
	IdempotencyEndpoint idempotencyEndpoint(IdempotencyEngine engine, IdempotentOperationSource operationSource,
			ObjectProvider<IdempotencyProperties> properties) {
		IdempotencyProperties configured = properties.getIfAvailable();
		String keyPrefix = (configured != null && "redis".equals(engine.getStore().type())) ? configured.getKeyPrefix()
				: null;
		return new IdempotencyEndpoint(engine, operationSource, keyPrefix);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(IdempotencyEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	IdempotencyEndpointWebExtension idempotencyEndpointWebExtension(IdempotencyEndpoint endpoint) {
		return new IdempotencyEndpointWebExtension(endpoint);
	}

}
