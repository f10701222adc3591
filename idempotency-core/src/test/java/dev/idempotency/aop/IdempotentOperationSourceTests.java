package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.Idempotent;
import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.OperationSettings;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class IdempotentOperationSourceTests {

	static Stream<Arguments> durations() {
		return Stream.of(Arguments.of("500ms", Duration.ofMillis(500)), Arguments.of("30s", Duration.ofSeconds(30)),
				Arguments.of("5m", Duration.ofMinutes(5)), Arguments.of("2h", Duration.ofHours(2)),
				Arguments.of("1d", Duration.ofDays(1)), Arguments.of("1500", Duration.ofMillis(1500)),
				Arguments.of("+30s", Duration.ofSeconds(30)), Arguments.of("30S", Duration.ofSeconds(30)),
				Arguments.of(" 30s ", Duration.ofSeconds(30)), Arguments.of("PT5M", Duration.ofMinutes(5)),
				Arguments.of("pt5m", Duration.ofMinutes(5)), Arguments.of(" PT5M ", Duration.ofMinutes(5)),
				Arguments.of("P1DT2H", Duration.ofHours(26)), Arguments.of("1h30m", Duration.ofMinutes(90)),
				Arguments.of("2500us", Duration.ofNanos(2_500_000)));
	}

	@ParameterizedTest
	@MethodSource("durations")
	void parsesDurationAttributesInSpringsStyles(String text, Duration expected) {
		assertThat(settings(text).retention()).isEqualTo(expected);
	}

	@ParameterizedTest
	@ValueSource(strings = { "5x", "1.5s", "30 s", "s", "thirty seconds", "P", "PT5X", "99999999999999999999s",
			"9999999999999999d" })
	void rejectsDurationsThatNoStyleReadsNamingAttributeMethodAndFormats(String text) {
		assertThatIllegalStateException().isThrownBy(() -> settings(text))
			.withMessage("Invalid @Idempotent(retention = \"${duration}\") on " + Retained.class.getName()
					+ ".run(String): '" + text + "' is not a duration (use 500ms, 30s, 5m, 2h, 1d or PT5M)");
	}

	@Test
	void negativeDurationIsReadAndThenRejectedBySettingsValidation() {
		assertThatIllegalStateException().isThrownBy(() -> settings("-5s"))
			.withMessageContaining("Retained.run")
			.withMessageEndingWith("'retention' must be positive, was PT-5S");
	}

	@Test
	void durationTooLongToMeasureIsRejectedBySettingsValidation() {
		assertThatIllegalStateException().isThrownBy(() -> settings("999999999999d"))
			.withMessageContaining("Retained.run")
			.withMessageContaining("'retention' must be at most");
	}

	@Test
	void classWithoutTheAnnotationIsNeverAskedAboutMethodByMethod() {
		CountingOperationSource source = new CountingOperationSource();
		IdempotentAdvisor advisor = advisor(source);
		for (Class<?> type : List.of(Plain.class, PlainSubclass.class, PlainWithInterface.class, String.class)) {
			assertThat(AopUtils.canApply(advisor, type)).as(type.getName()).isFalse();
		}
		assertThat(source.asked).isEmpty();
	}

	@Test
	void classAnnotatedOnItselfASuperclassOrAnInterfaceOrTheirMethodsStillMatches() throws Exception {
		CountingOperationSource source = new CountingOperationSource();
		IdempotentAdvisor advisor = advisor(source);
		for (Class<?> type : List.of(MethodAnnotated.class, TypeAnnotated.class, InheritsAnnotatedType.class,
				InheritsAnnotatedMethod.class, OverridesAnnotatedMethod.class, ImplementsAnnotatedMethod.class,
				ImplementsAnnotatedType.class, ImplementsExtendedInterface.class)) {
			assertThat(AopUtils.canApply(advisor, type)).as(type.getName()).isTrue();
			assertThat(source.getOperation(type.getMethod("run", String.class), type)).as(type.getName()).isNotNull();
		}
	}

	@Test
	void beanThatIsAlreadyAnInterfaceProxyIsACandidateThroughItsInterfaces() {
		ProxyFactory factory = new ProxyFactory(new ImplementsAnnotatedMethod());
		factory.addInterface(AnnotatedMethod.class);
		Object proxy = factory.getProxy();
		assertThat(AopUtils.isJdkDynamicProxy(proxy)).isTrue();
		assertThat(new CountingOperationSource().isCandidateClass(proxy.getClass())).isTrue();
	}

	// A JDK proxy's class is generated ($Proxy12, numbered in creation order) and its
	// methods carry no parameter names: the operation must be named and resolved from the
	// interface, or its name (and so every key) would change from one start to the next.
	@Test
	void beanThatIsAlreadyAnInterfaceProxyIsResolvedThroughTheInterfaceMethod() throws Exception {
		ProxyFactory factory = new ProxyFactory(new ImplementsAnnotatedMethod());
		factory.addInterface(AnnotatedMethod.class);
		Object proxy = factory.getProxy();
		IdempotentOperation operation = new CountingOperationSource()
			.getOperation(AnnotatedMethod.class.getMethod("run", String.class), proxy.getClass());
		assertThat(operation).isNotNull();
		assertThat(operation.name()).isEqualTo("AnnotatedMethod.run");
		assertThat(operation.method()).isEqualTo(AnnotatedMethod.class.getMethod("run", String.class));
	}

	// A lambda's class is generated too (Outer$$Lambda/0x..., an address that changes
	// between starts, with a '/' that no operation name may hold).
	@Test
	void beanThatIsALambdaIsNamedAndResolvedThroughTheInterfaceMethod() throws Exception {
		AnnotatedMethod lambda = (id) -> id + "!";
		IdempotentOperationSource source = new CountingOperationSource();
		assertThat(source.isCandidateClass(lambda.getClass())).isTrue();
		IdempotentOperation operation = source.getOperation(AnnotatedMethod.class.getMethod("run", String.class),
				lambda.getClass());
		assertThat(operation).isNotNull();
		assertThat(operation.name()).isEqualTo("AnnotatedMethod.run");
		assertThat(operation.method()).isEqualTo(AnnotatedMethod.class.getMethod("run", String.class));
	}

	@Test
	void candidateClassThatAnnotatesAMethodOfObjectFails() {
		IdempotentOperationSource source = new CountingOperationSource();
		assertThatIllegalStateException().isThrownBy(() -> source.isCandidateClass(AnnotatedToString.class))
			.withMessageContaining("AnnotatedToString.toString()")
			.withMessageContaining("the methods of Object");
	}

	private static OperationSettings settings(String duration) {
		IdempotentOperationSource source = new IdempotentOperationSource(IdempotencyDefaults.STANDARD,
				new JacksonResultCodec(), (value) -> value.replace("${duration}", duration));
		Method method = ReflectionUtils.findMethod(Retained.class, "run", String.class);
		IdempotentOperation operation = source.getOperation(method, Retained.class);
		assertThat(operation).isNotNull();
		return operation.operation().settings();
	}

	private static IdempotentAdvisor advisor(IdempotentOperationSource source) {
		return new IdempotentAdvisor(source, () -> {
			throw new AssertionError("no call expected");
		}, JacksonPayloadFingerprinter::new, null);
	}

	static class CountingOperationSource extends IdempotentOperationSource {

		final List<Class<?>> asked = new ArrayList<>();

		CountingOperationSource() {
			super(IdempotencyDefaults.STANDARD, new JacksonResultCodec(), null);
		}

		@Override
		public @Nullable IdempotentOperation getOperation(Method method, @Nullable Class<?> targetClass) {
			this.asked.add(targetClass);
			return super.getOperation(method, targetClass);
		}

	}

	static class Retained {

		@Idempotent(key = "#id", retention = "${duration}")
		public String run(String id) {
			return id;
		}

	}

	static class Plain {

		public String run(String id) {
			return id;
		}

		String other(String id) {
			return id;
		}

	}

	static class PlainSubclass extends Plain {

		@Override
		public String run(String id) {
			return id + "!";
		}

	}

	interface PlainInterface {

		String run(String id);

	}

	static class PlainWithInterface implements PlainInterface, Runnable {

		@Override
		public String run(String id) {
			return id;
		}

		@Override
		public void run() {
		}

	}

	static class MethodAnnotated {

		@Idempotent(key = "#id")
		public String run(String id) {
			return id;
		}

	}

	@Idempotent(key = "#p0")
	static class TypeAnnotated {

		public String run(String id) {
			return id;
		}

	}

	static class InheritsAnnotatedType extends TypeAnnotated {

	}

	static class InheritsAnnotatedMethod extends MethodAnnotated {

	}

	static class OverridesAnnotatedMethod extends MethodAnnotated {

		@Override
		public String run(String id) {
			return id + "!";
		}

	}

	interface AnnotatedMethod {

		@Idempotent(key = "#id")
		String run(String id);

	}

	static class ImplementsAnnotatedMethod implements AnnotatedMethod {

		@Override
		public String run(String id) {
			return id;
		}

	}

	@Idempotent(key = "#p0")
	interface AnnotatedType {

	}

	static class ImplementsAnnotatedType implements AnnotatedType {

		public String run(String id) {
			return id;
		}

	}

	interface ExtendedInterface extends AnnotatedMethod {

	}

	static class ImplementsExtendedInterface implements ExtendedInterface {

		@Override
		public String run(String id) {
			return id;
		}

	}

	static class AnnotatedToString {

		@Idempotent(key = "'constant'")
		@Override
		public String toString() {
			return "x";
		}

	}

}
