package dev.idempotency.autoconfigure.web.servlet;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.IdempotencyProperties;
import dev.idempotency.web.IdempotencyProblemAdvice;
import dev.idempotency.web.KeyScope;
import dev.idempotency.aop.RequestBinding;
import dev.idempotency.web.RequestKeys;
import dev.idempotency.web.servlet.ServletKeyScopeResolver;
import dev.idempotency.web.servlet.ServletRequestBinding;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * Auto-configuration of idempotent Spring MVC request handlers: the request binding that
 * gives a handler without a key expression the key of its request, in the scope that the
 * key scope resolver gives it (by default its principal), and the advice that maps the
 * idempotency exceptions to problem responses. Each backs off when the application
 * defines its own.
 */
@AutoConfiguration(after = IdempotencyAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ DispatcherServlet.class, ServletRequestBinding.class })
public final class IdempotencyWebMvcAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ServletKeyScopeResolver idempotencyKeyScopeResolver() {
		return ServletKeyScopeResolver.principal();
	}

	@Bean
	@ConditionalOnMissingBean(RequestBinding.class)
	ServletRequestBinding idempotencyRequestBinding(IdempotencyProperties properties,
			ServletKeyScopeResolver keyScopeResolver) {
		RequestKeys keys = new RequestKeys(properties.getHttp().getKeyHeader(),
				KeyScope.valueOf(properties.getHttp().getScope().name()), properties.getHttp().getMaxKeyLength());
		return new ServletRequestBinding(keys, keyScopeResolver);
	}

	@Bean
	@ConditionalOnMissingBean
	IdempotencyProblemAdvice idempotencyProblemAdvice() {
		return new IdempotencyProblemAdvice();
	}

}
