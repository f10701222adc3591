package dev.idempotency.aop;

import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.NestedExceptionUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The advisor and its proxy creator, as the auto-configuration sets them up, for tests
 * that import it and define the {@link IdempotencyEngine} bean (and, optionally, the
 * {@link IdempotencyDefaults}) themselves.
 */
@Configuration(proxyBeanMethods = false)
class AdvisorInfrastructure {

	@Bean
	static DefaultAdvisorAutoProxyCreator autoProxyCreator() {
		DefaultAdvisorAutoProxyCreator creator = new DefaultAdvisorAutoProxyCreator();
		creator.setProxyTargetClass(true);
		return creator;
	}

	@Bean
	static IdempotentOperationSource operationSource(ObjectProvider<IdempotencyDefaults> defaults,
			ObjectProvider<RequestHandlerMethods> handlerMethods, ConfigurableListableBeanFactory beanFactory) {
		return new IdempotentOperationSource(defaults.getIfAvailable(() -> IdempotencyDefaults.STANDARD),
				new JacksonResultCodec(JsonMapper.builder().build()), new EmbeddedValueResolver(beanFactory),
				handlerMethods.getIfAvailable(() -> RequestHandlerMethods.NONE));
	}

	@Bean
	static IdempotentAdvisor idempotentAdvisor(IdempotentOperationSource operationSource,
			ConfigurableListableBeanFactory beanFactory) {
		return new IdempotentAdvisor(operationSource, () -> beanFactory.getBean(IdempotencyEngine.class),
				() -> new JacksonPayloadFingerprinter(JsonMapper.builder().build()),
				new BeanFactoryResolver(beanFactory));
	}

	/**
	 * Return the message of the startup failure an invalid annotation causes.
	 * @param failure what starting the context threw
	 * @return the message of its root cause, checked to be about an invalid annotation
	 */
	static String invalidAnnotation(Throwable failure) {
		Throwable root = NestedExceptionUtils.getRootCause(failure);
		assertThat(root).isInstanceOf(IllegalStateException.class).hasMessageStartingWith("Invalid");
		return root.getMessage();
	}

}
