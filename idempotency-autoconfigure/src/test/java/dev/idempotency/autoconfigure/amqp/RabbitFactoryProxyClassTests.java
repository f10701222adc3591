package dev.idempotency.autoconfigure.amqp;

import org.junit.jupiter.api.Test;

import dev.idempotency.amqp.IdempotencyRabbitListenerConfigurer;

import org.springframework.amqp.rabbit.config.DirectRabbitListenerContainerFactory;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The class of the proxy a listener container factory becomes, which ahead-of-time
 * processing asks for: Spring keeps a class generated then for a native image, which
 * cannot generate the proxy's class at run time (the factory would be left unproxied,
 * with a warning, its asynchronous listeners' failures left to Spring AMQP).
 */
class RabbitFactoryProxyClassTests {

	// Ahead of time no bean is made: the configurer needs the store
	private final ObjectProvider<IdempotencyRabbitListenerConfigurer> noConfigurer = new ObjectProvider<>() {

		@Override
		public IdempotencyRabbitListenerConfigurer getObject() {
			throw new AssertionError("the configurer was asked for ahead of time");
		}

		@Override
		public IdempotencyRabbitListenerConfigurer getIfAvailable() {
			return getObject();
		}

	};

	@Configuration(proxyBeanMethods = false)
	static class FactoryConfiguration {

		@Bean
		static RabbitListenerContainerFactoryPostProcessor rabbitFactoryPostProcessor(
				ObjectProvider<IdempotencyRabbitListenerConfigurer> configurer) {
			return new RabbitListenerContainerFactoryPostProcessor(configurer);
		}

		@Bean
		AotOnlyFactory rabbitListenerContainerFactory() {
			return new AotOnlyFactory();
		}

	}

	static class AotOnlyFactory extends SimpleRabbitListenerContainerFactory {

	}

	@Test
	void beanTypeOfAFactoryAheadOfTimeIsTheClassOfItsProxy() {
		RabbitListenerContainerFactoryPostProcessor postProcessor = new RabbitListenerContainerFactoryPostProcessor(
				this.noConfigurer);
		for (Class<?> factoryClass : new Class<?>[] { SimpleRabbitListenerContainerFactory.class,
				DirectRabbitListenerContainerFactory.class }) {
			Class<?> type = postProcessor.determineBeanType(factoryClass, "factory");
			assertThat(type).isNotEqualTo(factoryClass);
			assertThat(factoryClass).isAssignableFrom(type);
			assertThat(ClassUtils.isCglibProxyClass(type)).isTrue();
		}
	}

	@Test
	void processingAheadOfTimeKeepsTheProxyClassWithItsHints() {
		GenericApplicationContext build = new GenericApplicationContext();
		AnnotationConfigUtils.registerAnnotationConfigProcessors(build);
		build.registerBean(FactoryConfiguration.class);
		TestGenerationContext generationContext = new TestGenerationContext();
		new ApplicationContextAotGenerator().processAheadOfTime(build, generationContext);
		// A class of its own, whose proxy no other test generated first in this JVM: a
		// class generated before is not generated, and so not captured, again
		String proxyClass = AotOnlyFactory.class.getName() + "$$SpringCGLIB$$0";
		assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(proxyClass)))
			.accepts(generationContext.getRuntimeHints());
		assertThat(generationContext.getGeneratedFiles().getGeneratedFiles(Kind.CLASS))
			.containsKey(proxyClass.replace('.', '/') + ".class");
	}

	@Test
	void beanTypeOfAnythingElseIsLeftAlone() {
		RabbitListenerContainerFactoryPostProcessor postProcessor = new RabbitListenerContainerFactoryPostProcessor(
				this.noConfigurer);
		assertThat(postProcessor.determineBeanType(String.class, "other")).isEqualTo(String.class);
	}

}
