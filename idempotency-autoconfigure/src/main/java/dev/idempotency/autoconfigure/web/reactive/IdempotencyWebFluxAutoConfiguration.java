package dev.idempotency.autoconfigure.web.reactive;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.web.IdempotencyProblemAdvice;
import dev.idempotency.web.KeyScope;
import dev.idempotency.aop.RequestBinding;
import dev.idempotency.web.RequestKeys;
import dev.idempotency.web.reactive.IdempotencyWebFilter;
import dev.idempotency.web.reactive.ReactiveKeyScopeResolver;
import dev.idempotency.web.reactive.ReactiveRequestBinding;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.DispatcherHandler;

/**
 * Auto-configuration of idempotent Spring WebFlux request handlers: the web filter that
 * makes the exchange visible to handler methods and resolves the scope of its key with
 * the key scope resolver (by default its principal), the request binding that gives a
 * handler without a key expression the key of its request, and the advice that maps the
 * idempotency exceptions to problem responses. Each backs off when the application
 * defines its own.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({ DispatcherHandler.class, ReactiveRequestBinding.class })
public final class IdempotencyWebFluxAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	IdempotencyWebFilter idempotencyWebFilter(IdempotencyProperties properties,
			ReactiveKeyScopeResolver keyScopeResolver) {
		return new IdempotencyWebFilter(keys(properties), keyScopeResolver);
	}

	@Bean
	@ConditionalOnMissingBean
	ReactiveKeyScopeResolver idempotencyKeyScopeResolver() {
		return ReactiveKeyScopeResolver.principal();
	}

	@Bean
	@ConditionalOnMissingBean(RequestBinding.class)
	ReactiveRequestBinding idempotencyRequestBinding(IdempotencyProperties properties) {
		return new ReactiveRequestBinding(keys(properties));
	}

	@Bean
	@ConditionalOnMissingBean
	IdempotencyProblemAdvice idempotencyProblemAdvice() {
		return new IdempotencyProblemAdvice();
	}

	private static RequestKeys keys(IdempotencyProperties properties) {
		return new RequestKeys(properties.getHttp().getKeyHeader(),
				KeyScope.valueOf(properties.getHttp().getScope().name()), properties.getHttp().getMaxKeyLength());
	}

}
