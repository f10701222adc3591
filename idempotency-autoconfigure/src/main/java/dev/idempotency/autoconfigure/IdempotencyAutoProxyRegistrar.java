package dev.idempotency.autoconfigure;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers an auto-proxy creator unless a stronger one is already registered, so that
 * {@code @Idempotent} beans are proxied even without Spring Boot's AOP auto-configuration
 * ({@code spring.aop.auto=false}, or an application that does not use it). Like that
 * auto-configuration, it proxies classes (CGLIB) unless
 * {@code spring.aop.proxy-target-class=false}, so that a bean injected by its class still
 * gets the proxy.
 */
final class IdempotencyAutoProxyRegistrar implements ImportBeanDefinitionRegistrar {

	private final Environment environment;

	IdempotencyAutoProxyRegistrar(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		if (this.environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true)) {
			AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
		}
	}

}
