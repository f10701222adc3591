package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.Idempotent;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.aop.IdempotentAdvisor;
import dev.idempotency.aop.IdempotentOperation;
import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.aop.RequestHandlerMethods;
import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.codec.PayloadFingerprinter;
import dev.idempotency.codec.ResultCodec;
import dev.idempotency.engine.DefaultIdempotentExecutor;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.IdempotencyShutdownLifecycle;
import dev.idempotency.engine.OperationSettings;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * Tests for {@link IdempotencyAutoConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class));

	@Test
	void registersEveryBeanWithMemoryStoreWhenThereIsNoRedis(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(IdempotencyProperties.class)
				.hasSingleBean(IdempotencyDefaults.class)
				.hasSingleBean(JacksonResultCodec.class)
				.hasSingleBean(JacksonPayloadFingerprinter.class)
				.hasSingleBean(InMemoryIdempotencyStore.class)
				.hasSingleBean(IdempotencyEngine.class)
				.hasSingleBean(IdempotencyShutdownLifecycle.class)
				.hasSingleBean(DefaultIdempotentExecutor.class)
				.hasSingleBean(IdempotentOperationSource.class)
				.hasSingleBean(IdempotentAdvisor.class)
				.hasBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME);
			assertThat(context.getBean(IdempotencyDefaults.class)).isEqualTo(IdempotencyDefaults.STANDARD);
		});
		assertThat(output).contains("idempotency records are kept in memory, in this JVM only")
			.contains("set idempotency.store=memory");
	}

	@Test
	void registersNothingWhenDisabled() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
			.withPropertyValues("idempotency.enabled=false")
			.withBean(Payments.class)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(IdempotencyProperties.class)
					.doesNotHaveBean(IdempotencyDefaults.class)
					.doesNotHaveBean(ResultCodec.class)
					.doesNotHaveBean(PayloadFingerprinter.class)
					.doesNotHaveBean(IdempotencyStore.class)
					.doesNotHaveBean(IdempotencyEngine.class)
					.doesNotHaveBean(IdempotencyShutdownLifecycle.class)
					.doesNotHaveBean(IdempotentExecutor.class)
					.doesNotHaveBean(IdempotentOperationSource.class)
					.doesNotHaveBean(IdempotentAdvisor.class);
				assertThat(AopUtils.isAopProxy(context.getBean(Payments.class))).isFalse();
			});
	}

	@Test
	void backsOffFromUserDefaults() {
		IdempotencyDefaults defaults = new IdempotencyDefaults(IdempotencyDefaults.STANDARD.settings(),
				IdempotencyDefaults.STANDARD.onStoreFailure(), 64, 10, Map.of());
		this.contextRunner.withBean(IdempotencyDefaults.class, () -> defaults)
			.run((context) -> assertThat(context).getBean(IdempotencyDefaults.class).isSameAs(defaults));
	}

	@Test
	void backsOffFromUserResultCodec() {
		ResultCodec codec = mock(ResultCodec.class);
		this.contextRunner.withBean(ResultCodec.class, () -> codec)
			.run((context) -> assertThat(context).getBean(ResultCodec.class).isSameAs(codec));
	}

	@Test
	void backsOffFromUserPayloadFingerprinter() {
		PayloadFingerprinter fingerprinter = (payload) -> new byte[0];
		this.contextRunner.withBean(PayloadFingerprinter.class, () -> fingerprinter)
			.run((context) -> assertThat(context).getBean(PayloadFingerprinter.class).isSameAs(fingerprinter));
	}

	@Test
	void backsOffFromUserStore() {
		IdempotencyStore store = mock(IdempotencyStore.class);
		this.contextRunner.withBean(IdempotencyStore.class, () -> store).run((context) -> {
			assertThat(context).getBean(IdempotencyStore.class).isSameAs(store);
			assertThat(context.getBean(IdempotencyEngine.class).getStore()).isSameAs(store);
		});
	}

	@Test
	void backsOffFromUserEngine() {
		IdempotencyEngine engine = new IdempotencyEngine(mock(IdempotencyStore.class), IdempotencyDefaults.STANDARD,
				List.of());
		this.contextRunner.withBean(IdempotencyEngine.class, () -> engine)
			.run((context) -> assertThat(context).getBean(IdempotencyEngine.class).isSameAs(engine));
	}

	@Test
	void backsOffFromUserShutdownLifecycle() {
		IdempotencyShutdownLifecycle lifecycle = mock(IdempotencyShutdownLifecycle.class);
		this.contextRunner.withBean(IdempotencyShutdownLifecycle.class, () -> lifecycle)
			.run((context) -> assertThat(context).getBean(IdempotencyShutdownLifecycle.class).isSameAs(lifecycle));
	}

	@Test
	void backsOffFromUserExecutor() {
		IdempotentExecutor executor = mock(IdempotentExecutor.class);
		this.contextRunner.withBean(IdempotentExecutor.class, () -> executor)
			.run((context) -> assertThat(context).getBean(IdempotentExecutor.class).isSameAs(executor));
	}

	@Test
	void backsOffFromUserOperationSource() {
		IdempotentOperationSource source = new IdempotentOperationSource(IdempotencyDefaults.STANDARD,
				mock(ResultCodec.class), null);
		this.contextRunner.withBean(IdempotentOperationSource.class, () -> source)
			.run((context) -> assertThat(context).getBean(IdempotentOperationSource.class).isSameAs(source));
	}

	@Test
	void backsOffFromUserAdvisor() {
		IdempotentAdvisor advisor = new IdempotentAdvisor(
				new IdempotentOperationSource(IdempotencyDefaults.STANDARD, mock(ResultCodec.class), null),
				() -> mock(IdempotencyEngine.class), () -> mock(PayloadFingerprinter.class), null);
		this.contextRunner.withBean(IdempotentAdvisor.class, () -> advisor)
			.run((context) -> assertThat(context).getBean(IdempotentAdvisor.class).isSameAs(advisor));
	}

	@Test
	void proxiesAnnotatedClassWithoutInterfaceWithoutAopAutoConfiguration() {
		this.contextRunner.withBean(Payments.class).run((context) -> {
			Payments payments = context.getBean(Payments.class);
			assertThat(AopUtils.isCglibProxy(payments)).isTrue();
			assertThat(((Advised) payments).getAdvisors()).contains(context.getBean(IdempotentAdvisor.class));
		});
	}

	@Test
	void proxiesAnnotatedClassWithAopAutoConfiguration() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
			.withBean(Payments.class)
			.run((context) -> assertThat(AopUtils.isCglibProxy(context.getBean(Payments.class))).isTrue());
	}

	@Test
	void proxiesClassOfBeanWithInterfaceByDefault() {
		this.contextRunner.withBean(Refunds.class, DefaultRefunds::new)
			.run((context) -> assertThat(AopUtils.isCglibProxy(context.getBean(Refunds.class))).isTrue());
	}

	@Test
	void proxiesInterfaceWhenProxyTargetClassIsFalse() {
		this.contextRunner.withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean(Refunds.class, DefaultRefunds::new)
			.run((context) -> assertThat(AopUtils.isJdkDynamicProxy(context.getBean(Refunds.class))).isTrue());
	}

	@Test
	void doesNotProxyBeanWithoutAnnotation() {
		this.contextRunner.withBean(Plain.class)
			.run((context) -> assertThat(AopUtils.isAopProxy(context.getBean(Plain.class))).isFalse());
	}

	@Test
	void ordersAdvisorOutsideTransactionsByDefault() {
		this.contextRunner.run((context) -> assertThat(context.getBean(IdempotentAdvisor.class).getOrder())
			.isEqualTo(Ordered.LOWEST_PRECEDENCE - 100)
			.isLessThan(Ordered.LOWEST_PRECEDENCE));
	}

	@Test
	void ordersAdvisorFromProperty() {
		this.contextRunner.withPropertyValues("idempotency.advisor-order=5")
			.run((context) -> assertThat(context.getBean(IdempotentAdvisor.class).getOrder()).isEqualTo(5));
	}

	@Test
	void createsNothingTooEarlyForPostProcessors(CapturedOutput output) {
		this.contextRunner.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class))
			.withUserConfiguration(PlainPostProcessorConfiguration.class)
			.withBean(Payments.class)
			.run((context) -> assertThat(AopUtils.isAopProxy(context.getBean(Payments.class))).isTrue());
		assertThat(output).doesNotContain("not eligible for getting processed");
	}

	@Test
	void resolvesPlaceholdersInAnnotationAttributes() {
		this.contextRunner.withPropertyValues("test.lock-timeout=45s").withBean(Placeholders.class).run((context) -> {
			context.getBean(Placeholders.class);
			OperationSettings settings = settingsOf(context, "Placeholders.run");
			assertThat(settings.lockTimeout()).isEqualTo(Duration.ofSeconds(45));
			assertThat(settings.retention()).isEqualTo(Duration.ofHours(11));
		});
	}

	@Test
	void failsStartupOnKeyExpressionWithSyntaxError() {
		this.contextRunner.withBean(KeySyntaxError.class)
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("Invalid @Idempotent(key = \"#id +\")")
				.hasStackTraceContaining(KeySyntaxError.class.getName() + ".run(String)"));
	}

	@Test
	void failsStartupOnKeyExpressionWithUnknownParameter() {
		this.contextRunner.withBean(UnknownParameter.class)
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("Invalid @Idempotent(key = \"#orderId\")")
				.hasStackTraceContaining(UnknownParameter.class.getName() + ".run(String)")
				.hasStackTraceContaining("unknown variable [#orderId]; parameters are [id]"));
	}

	static OperationSettings settingsOf(AssertableApplicationContext context, String name) {
		return context.getBean(IdempotentOperationSource.class)
			.getOperations()
			.stream()
			.filter((operation) -> operation.name().equals(name))
			.map(IdempotentOperation::operation)
			.findFirst()
			.orElseThrow()
			.settings();
	}

	@Configuration(proxyBeanMethods = false)
	static class PlainPostProcessorConfiguration {

		@Bean
		static BeanPostProcessor plainPostProcessor() {
			return new BeanPostProcessor() {
			};
		}

	}

	static class Payments {

		@Idempotent(key = "#id")
		public void charge(String id) {
		}

	}

	interface Refunds {

		void refund(String id);

	}

	static class DefaultRefunds implements Refunds {

		@Override
		@Idempotent(key = "#id")
		public void refund(String id) {
		}

	}

	static class Plain {

		public void run(String id) {
		}

	}

	static class Placeholders {

		@Idempotent(key = "#id", lockTimeout = "${test.lock-timeout}", retention = "${test.retention:11h}")
		public void run(String id) {
		}

	}

	@Test
	void requestHandlerMethodsBeanOfAnotherWebStackTellsItsHandlers() {
		this.contextRunner.withBean(RequestHandlerMethods.class, OtherStackHandlerMethods::new)
			.withBean(OtherStackHandler.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(IdempotentOperationSource.class).getOperations())
					.extracting(IdempotentOperation::name)
					.contains("OtherStackHandler.charge");
			});
	}

	static class OtherStackHandlerMethods implements RequestHandlerMethods {

		@Override
		public boolean isHandler(Method method, Class<?> targetClass) {
			return targetClass == OtherStackHandler.class;
		}

		@Override
		public Set<String> mappedMethods(Method method, Class<?> targetClass) {
			return Set.of("POST");
		}

		@Override
		public @Nullable Class<?> streamingType(ResolvableType returnType) {
			return null;
		}

		@Override
		public int requestBodyIndex(Method method) {
			return -1;
		}

		@Override
		public boolean isDeferredBody(Method method, int index) {
			return false;
		}

	}

	// A handler of a web stack other than Spring's: its key comes from the request
	static class OtherStackHandler {

		@Idempotent
		public String charge() {
			return "charged";
		}

	}

	static class KeySyntaxError {

		@Idempotent(key = "#id +")
		public void run(String id) {
		}

	}

	static class UnknownParameter {

		@Idempotent(key = "#orderId")
		public void run(String id) {
		}

	}

}
