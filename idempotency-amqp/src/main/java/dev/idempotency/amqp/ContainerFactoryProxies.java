package dev.idempotency.amqp;

import java.lang.reflect.Modifier;

import org.aopalliance.aop.Advice;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.rabbit.config.AbstractRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.BaseRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.ContainerCustomizer;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.AopConfigException;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.NameMatchMethodPointcutAdvisor;

/**
 * Proxies a configured listener container factory so that the containers it creates get
 * the rules where the advice chain cannot reach; a factory that cannot be proxied is left
 * configured in place, with a warning, its {@code ContainerCustomizer} wrapped.
 */
final class ContainerFactoryProxies {

	// The configurer's logger, which the warning has always been logged by
	private static final Log logger = LogFactory.getLog(IdempotencyRabbitListenerConfigurer.class);

	private final ContainerCreationInterceptor containerCreation;

	private final ListenerAdviceChains chains;

	ContainerFactoryProxies(ContainerCreationInterceptor containerCreation, ListenerAdviceChains chains) {
		this.containerCreation = containerCreation;
		this.chains = chains;
	}

	/**
	 * Return a proxy of a configured factory, as
	 * {@link IdempotencyRabbitListenerConfigurer#applyTo} describes.
	 * @param <F> the type of the factory
	 * @param factory the factory, already configured
	 * @return the proxy to use in place of the factory
	 */
	@SuppressWarnings("unchecked")
	<F extends BaseRabbitListenerContainerFactory<?>> F proxy(F factory) {
		NameMatchMethodPointcutAdvisor advisor = new NameMatchMethodPointcutAdvisor(this.containerCreation);
		advisor.setMappedName("createListenerContainer");
		if (factory instanceof Advised advised) {
			if (!advised.isFrozen() && advised.indexOf(this.containerCreation) < 0) {
				advised.addAdvisor(0, advisor);
			}
			return factory;
		}
		Class<?> type = factory.getClass();
		if (Modifier.isFinal(type.getModifiers()) || type.isSealed()) {
			return configuredInPlace(factory, "it is " + (type.isSealed() ? "sealed" : "final"));
		}
		ProxyFactory proxyFactory = new ProxyFactory(factory);
		proxyFactory.setProxyTargetClass(true);
		proxyFactory.addAdvisor(advisor);
		try {
			return (F) proxyFactory.getProxy(type.getClassLoader());
		}
		catch (AopConfigException ex) {
			return configuredInPlace(factory, ex.getMessage());
		}
	}

	/**
	 * Return the class of the proxy {@link #proxy} makes of a factory of a class,
	 * generating it now: the advice only decides which calls it applies to when called
	 * (the proxy's configuration is not frozen), so the class is the same whatever the
	 * interceptor.
	 * @param type the class of a factory
	 * @return the proxy class, or the class itself if it cannot be proxied
	 */
	static Class<?> proxyClass(Class<?> type) {
		if (Modifier.isFinal(type.getModifiers()) || type.isSealed() || Advised.class.isAssignableFrom(type)) {
			return type;
		}
		ProxyFactory proxyFactory = new ProxyFactory();
		proxyFactory.setTargetClass(type);
		proxyFactory.setProxyTargetClass(true);
		NameMatchMethodPointcutAdvisor advisor = new NameMatchMethodPointcutAdvisor(
				(org.aopalliance.intercept.MethodInterceptor) (invocation) -> invocation.proceed());
		advisor.setMappedName("createListenerContainer");
		proxyFactory.addAdvisor(advisor);
		try {
			return proxyFactory.getProxyClass(type.getClassLoader());
		}
		catch (AopConfigException ex) {
			return type;
		}
	}

	// Failing the application's startup would be worse than the rules the proxy adds.
	// The chain a ContainerCustomizer sets replaces the factory's, and no proxy puts the
	// rules back around it: the customizer is wrapped to do so
	private <F extends BaseRabbitListenerContainerFactory<?>> F configuredInPlace(F factory, @Nullable String reason) {
		if (factory instanceof AbstractRabbitListenerContainerFactory<?> containers) {
			keepRulesAroundCustomizer(containers);
		}
		logger.warn("RabbitMQ listener container factory of " + factory.getClass().getName() + " cannot be proxied ("
				+ reason + "), so it is only configured: its containers follow the rules"
				+ " of the advice chain, but their listeners that return a CompletableFuture or Mono are left to"
				+ " Spring AMQP and copies of keys in progress are requeued at the head of their queue");
		return factory;
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private void keepRulesAroundCustomizer(AbstractRabbitListenerContainerFactory<?> factory) {
		ContainerCustomizer<?> customizer = SpringAmqpInternals.containerCustomizer(factory);
		if (customizer != null && !(customizer instanceof RulesAroundCustomizer)) {
			((AbstractRabbitListenerContainerFactory) factory)
				.setContainerCustomizer(new RulesAroundCustomizer<>((ContainerCustomizer) customizer, this.chains));
		}
	}

	// Runs the application's customizer, then puts the rules around the chain it set;
	// the outermost advice is the factory's, which
	// requeues copies of keys in progress at the head, as the warning says
	private record RulesAroundCustomizer<C extends AbstractMessageListenerContainer>(ContainerCustomizer<C> delegate,
			ListenerAdviceChains chains) implements ContainerCustomizer<C> {

		@Override
		public void configure(C container) {
			this.delegate.configure(container);
			Advice[] chain = SpringAmqpInternals.adviceChain(container);
			if (chain != null) {
				container.setAdviceChain(this.chains.around(chain));
			}
		}

	}

}
