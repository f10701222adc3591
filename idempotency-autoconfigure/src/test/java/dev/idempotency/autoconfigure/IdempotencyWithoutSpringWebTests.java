package dev.idempotency.autoconfigure;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of an application that has idempotency-web, as the starter brings it, but not
 * Spring Web: run by a Surefire execution of its own that leaves spring-web,
 * spring-webmvc and spring-webflux out.
 */
@Tag("without-spring-web")
class IdempotencyWithoutSpringWebTests {

	@Test
	void runsWithTheWebModuleButWithoutSpringWeb() {
		ClassLoader classLoader = getClass().getClassLoader();
		assertThat(ClassUtils.isPresent("dev.idempotency.web.SpringWebHandlerMethods", classLoader)).isTrue();
		assertThat(ClassUtils.isPresent("org.springframework.web.bind.annotation.RequestMapping", classLoader))
			.isFalse();
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class))
			.withUserConfiguration(WebAutoConfigurations.class, CountingPayments.PaymentsConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				CountingPayments payments = context.getBean(CountingPayments.class);
				assertThat(payments.pay("p-1")).isEqualTo(payments.pay("p-1"))
					.isEqualTo(new CountingPayments.Receipt("p-1", 1));
				assertThat(payments.runs()).isEqualTo(1);
			});
	}

	/**
	 * The web auto-configurations, by name as an application finds them.
	 */
	@Configuration(proxyBeanMethods = false)
	@Import(WebAutoConfigurations.Selector.class)
	static class WebAutoConfigurations {

		static class Selector implements ImportSelector {

			@Override
			public String[] selectImports(AnnotationMetadata metadata) {
				return new String[] { "dev.idempotency.autoconfigure.web.servlet.IdempotencyWebMvcAutoConfiguration",
						"dev.idempotency.autoconfigure.web.reactive.IdempotencyWebFluxAutoConfiguration" };
			}

		}

	}

}
