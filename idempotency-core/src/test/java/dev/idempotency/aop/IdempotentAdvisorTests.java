package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.jspecify.annotations.Nullable;

import dev.idempotency.Idempotent;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.IdempotencyListener;
import dev.idempotency.engine.Outcome;
import dev.idempotency.engine.OperationOverrides;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.MapPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class IdempotentAdvisorTests {

	private AnnotationConfigApplicationContext context;

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	private <T> T start(Class<T> beanType, IdempotencyDefaults defaults) {
		this.context = new AnnotationConfigApplicationContext();
		this.context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("test", Map.of("payments.lock", "7s")));
		this.context.registerBean(IdempotencyDefaults.class, () -> defaults);
		this.context.register(Infrastructure.class, beanType);
		this.context.refresh();
		return this.context.getBean(beanType);
	}

	private <T> T start(Class<T> beanType) {
		return start(beanType, IdempotencyDefaults.STANDARD);
	}

	@Test
	void replaysGenericReturnTypesAsTheirDeclaredTypes() {
		Payments payments = start(Payments.class);
		assertThat(AopUtils.isCglibProxy(payments)).isTrue();
		Event event = new Event("e-1", 1250);
		List<Receipt> list = payments.list(event);
		assertThat(payments.list(event)).isEqualTo(list).first().isInstanceOf(Receipt.class);
		Map<String, List<Receipt>> map = payments.map(event);
		assertThat(payments.map(event)).isEqualTo(map);
		assertThat(payments.map(event).get("e-1").get(0)).isInstanceOf(Receipt.class);
		Optional<Receipt> optional = payments.optional(event);
		assertThat(optional).isPresent();
		assertThat(payments.optional(event)).isEqualTo(optional);
		assertThat(payments.empty(event)).isEmpty();
		assertThat(payments.empty(event)).isEmpty();
		assertThat(payments.primitive(event)).isEqualTo(payments.primitive(event)).isEqualTo(1250);
		assertThat(payments.instant(event)).isEqualTo(payments.instant(event));
		payments.voidMethod(event);
		payments.voidMethod(event);
		assertThat(payments.runs()).as("map() calls list() on itself, unproxied").isEqualTo(7);
	}

	@Test
	void keyExpressionsSeeParametersByNameAndPositionTheRootAndBeans() {
		Payments payments = start(Payments.class);
		assertThat(payments.positional("a", "b")).isEqualTo(payments.positional("a", "x"));
		assertThat(payments.rootAndBean("k")).isEqualTo(payments.rootAndBean("k"));
		assertThat(payments.runs()).isEqualTo(2);
	}

	@Test
	void nullKeyAndFailingKeyExpressionAreKeyExceptions() {
		Payments payments = start(Payments.class);
		assertThatExceptionOfType(IdempotencyKeyException.class).isThrownBy(() -> payments.list(new Event(null, 1)))
			.withMessageContaining("#event.id")
			.withMessageContaining("Payments.list");
		assertThatExceptionOfType(IdempotencyKeyException.class).isThrownBy(() -> payments.list(null))
			.withMessageContaining("#event.id");
		assertThat(payments.runs()).isEqualTo(0);
	}

	@Test
	void keyExpressionThatCannotBeEvaluatedCountsAsInvalid() {
		Payments payments = start(Payments.class);
		assertThatExceptionOfType(IdempotencyKeyException.class).isThrownBy(() -> payments.list(null));
		assertThat(this.context.getBean(Outcomes.class).outcomes).containsExactly(Outcome.INVALID);
	}

	@Test
	void requestWithoutAValidKeyHeaderCountsAsInvalid() {
		KeylessHandler handler = start(KeylessHandler.class);
		this.context.getBean(IdempotentAdvisor.class).setRequestBinding(() -> new RequestBinding() {

			@Override
			public BoundRequest bind(String operation) {
				throw new IdempotencyKeyException("no Idempotency-Key header");
			}

			@Override
			public Response currentResponse() {
				return null;
			}

		});
		assertThatExceptionOfType(IdempotencyKeyException.class).isThrownBy(() -> handler.pay("{}"))
			.withMessage("no Idempotency-Key header");
		assertThat(this.context.getBean(Outcomes.class).outcomes).containsExactly(Outcome.INVALID);
	}

	@Test
	void payloadFingerprintDetectsKeyReuse() {
		Payments payments = start(Payments.class);
		assertThat(payments.charge("k", new Event("e", 10))).isEqualTo(payments.charge("k", new Event("e", 10)));
		assertThatExceptionOfType(IdempotencyKeyReuseException.class)
			.isThrownBy(() -> payments.charge("k", new Event("e", 11)));
		assertThat(payments.runs()).isEqualTo(1);
	}

	@Test
	void annotationSettingsResolvePlaceholdersAndYieldToOperationConfiguration() {
		IdempotencyDefaults standard = IdempotencyDefaults.STANDARD;
		start(Payments.class, new IdempotencyDefaults(standard.settings(), standard.onStoreFailure(), 200, 1000,
				Map.of("payments.tuned", new OperationOverrides(null, Duration.ofMinutes(2), null, null))));
		IdempotentOperationSource source = this.context.getBean(IdempotentOperationSource.class);
		IdempotentOperation tuned = source.getOperations()
			.stream()
			.filter((operation) -> operation.name().equals("payments.tuned"))
			.findFirst()
			.orElseThrow();
		assertThat(tuned.operation().settings().lockTimeout()).isEqualTo(Duration.ofSeconds(7));
		assertThat(tuned.operation().settings().retention()).isEqualTo(Duration.ofMinutes(2));
		assertThat(tuned.operation().settings().waitTimeout()).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void typeLevelAnnotationMakesEveryPublicMethodItsOwnOperation() {
		Ledger ledger = start(Ledger.class);
		assertThat(ledger.debit("k")).isEqualTo(1);
		assertThat(ledger.credit("k")).isEqualTo(2);
		assertThat(ledger.debit("k")).isEqualTo(1);
		assertThat(this.context.getBean(IdempotentOperationSource.class).getOperations())
			.extracting(IdempotentOperation::name)
			.contains("ledger.debit", "ledger.credit");
	}

	@Test
	void syntaxErrorInKeyFailsStartupNamingMethodAndExpression() {
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> start(BadSyntax.class))
			.extracting(AdvisorInfrastructure::invalidAnnotation)
			.asString()
			.contains("BadSyntax.handle(Event)", "#event.id +");
	}

	@Test
	void unknownParameterInKeyFailsStartupNamingMethodAndExpression() {
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> start(UnknownParameter.class))
			.extracting(AdvisorInfrastructure::invalidAnnotation)
			.asString()
			.contains("UnknownParameter.handle(Event)", "#evnt.id", "[event]");
	}

	@Test
	void objectReturnTypeFailsStartup() {
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> start(ObjectReturn.class))
			.extracting(AdvisorInfrastructure::invalidAnnotation)
			.asString()
			.contains("ObjectReturn.handle(String)", "Object");
	}

	@Test
	void nameWithTheSeparatorFailsStartupNamingMethodAndName() {
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> start(SeparatorInName.class))
			.extracting(AdvisorInfrastructure::invalidAnnotation)
			.asString()
			.contains("@Idempotent(name = \"orders:refund\")", "SeparatorInName.refund(String)",
					"must not contain ':'");
	}

	@Test
	void nameWithWhitespaceFailsStartup() {
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> start(WhitespaceInName.class))
			.extracting(AdvisorInfrastructure::invalidAnnotation)
			.asString()
			.contains("@Idempotent(name = \"orders refund\")", "WhitespaceInName.refund(String)", "whitespace");
	}

	@Test
	void typeLevelNameWithTheSeparatorFailsStartup() {
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> start(SeparatorInTypeName.class))
			.extracting(AdvisorInfrastructure::invalidAnnotation)
			.asString()
			.contains("SeparatorInTypeName.debit(String)", "'orders:.debit' must not contain ':'");
	}

	@Test
	void typeLevelAnnotationNeverInterceptsTheMethodsOfObject() throws Exception {
		Account account = start(Account.class);
		assertThat(AopUtils.isCglibProxy(account)).isTrue();
		assertThat(account.debit("k")).isEqualTo(account.debit("k"));
		assertThat(account.toString()).isNotEqualTo(account.toString());
		assertThat(account.clone()).isNotSameAs(account.clone());
		IdempotentOperationSource source = this.context.getBean(IdempotentOperationSource.class);
		for (Method method : List.of(Account.class.getMethod("toString"),
				Account.class.getMethod("equals", Object.class), Account.class.getMethod("hashCode"),
				Account.class.getMethod("clone"), Account.class.getDeclaredMethod("finalize"))) {
			assertThat(source.getOperation(method, Account.class)).as(method.getName()).isNull();
		}
		assertThat(source.getOperations()).extracting(IdempotentOperation::name).containsExactly("Account.debit");
	}

	@Test
	void methodLevelAnnotationOnToStringFailsStartup() {
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> start(IdempotentToString.class))
			.extracting(AdvisorInfrastructure::invalidAnnotation)
			.asString()
			.contains("IdempotentToString.toString()", "the methods of Object");
	}

	@Test
	void methodLevelAnnotationOnEqualsFailsStartupEvenBesideOtherOperations() {
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> start(IdempotentEquals.class))
			.extracting(AdvisorInfrastructure::invalidAnnotation)
			.asString()
			.contains("IdempotentEquals.equals(Object)", "the methods of Object");
	}

	@Test
	void keyWhoseStringNamesItsIdentityFailsTheCallNamingItsType() {
		Payments payments = start(Payments.class);
		assertThatExceptionOfType(IdempotencyKeyException.class).isThrownBy(() -> payments.byEntity(new Entity("e-1")))
			.withMessageContaining("key expression '#entity' of")
			.withMessageContaining(Entity.class.getName() + ", which does not override toString()");
		assertThat(payments.runs()).isEqualTo(0);
	}

	@Configuration(proxyBeanMethods = false)
	@Import(AdvisorInfrastructure.class)
	static class Infrastructure {

		@Bean
		IdempotencyEngine idempotencyEngine(IdempotencyDefaults defaults, Outcomes outcomes) {
			return new IdempotencyEngine(new InMemoryIdempotencyStore(), defaults, List.of(outcomes));
		}

		@Bean
		Outcomes outcomes() {
			return new Outcomes();
		}

		@Bean
		static KeylessHandlerMethods keylessHandlerMethods() {
			return new KeylessHandlerMethods();
		}

		@Bean
		Prefix prefix() {
			return new Prefix("bean-");
		}

	}

	static class Outcomes implements IdempotencyListener {

		final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

		@Override
		public void onOutcome(String name, Outcome outcome) {
			this.outcomes.add(outcome);
		}

	}

	// A request handler as the web module would tell it: this test has no Spring Web
	static class KeylessHandler {

		@Idempotent
		String pay(String body) {
			return body;
		}

	}

	static class KeylessHandlerMethods implements RequestHandlerMethods {

		@Override
		public boolean isHandler(Method method, Class<?> targetClass) {
			return targetClass == KeylessHandler.class;
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
			return 0;
		}

		@Override
		public boolean isDeferredBody(Method method, int index) {
			return false;
		}

	}

	record Prefix(String value) {
	}

	record Event(String id, int amount) {
	}

	record Receipt(String id, int amount, int run) {
	}

	static class Payments {

		private final AtomicInteger runs = new AtomicInteger();

		int runs() {
			return this.runs.get();
		}

		@Idempotent(key = "#event.id")
		public List<Receipt> list(Event event) {
			return List.of(new Receipt(event.id(), event.amount(), this.runs.incrementAndGet()));
		}

		@Idempotent(key = "#event.id")
		public Map<String, List<Receipt>> map(Event event) {
			return Map.of(event.id(), list(event));
		}

		@Idempotent(key = "#event.id")
		public Optional<Receipt> optional(Event event) {
			return Optional.of(new Receipt(event.id(), event.amount(), this.runs.incrementAndGet()));
		}

		@Idempotent(key = "#event.id")
		public Optional<Receipt> empty(Event event) {
			this.runs.incrementAndGet();
			return Optional.empty();
		}

		@Idempotent(key = "#event.id")
		public int primitive(Event event) {
			this.runs.incrementAndGet();
			return event.amount();
		}

		@Idempotent(key = "#event.id")
		public Instant instant(Event event) {
			this.runs.incrementAndGet();
			return Instant.now();
		}

		@Idempotent(key = "#event.id")
		public void voidMethod(Event event) {
			this.runs.incrementAndGet();
		}

		@Idempotent(key = "#p0 + ':' + #a0")
		public String positional(String first, String second) {
			return first + second + this.runs.incrementAndGet();
		}

		@Idempotent(key = "@prefix.value() + #root.methodName + #k")
		public String rootAndBean(String k) {
			return k + this.runs.incrementAndGet();
		}

		@Idempotent(key = "#key", payload = "#event")
		public String charge(String key, Event event) {
			return key + event.amount() + this.runs.incrementAndGet();
		}

		@Idempotent(name = "payments.tuned", key = "#key", lockTimeout = "${payments.lock}", retention = "1h")
		public String tuned(String key) {
			return key;
		}

		@Idempotent(key = "#entity")
		public String byEntity(Entity entity) {
			return entity.id() + this.runs.incrementAndGet();
		}

	}

	@Idempotent(name = "ledger", key = "#key")
	static class Ledger {

		private final AtomicInteger runs = new AtomicInteger();

		public int debit(String key) {
			return this.runs.incrementAndGet();
		}

		public int credit(String key) {
			return this.runs.incrementAndGet();
		}

	}

	static final class Entity {

		private final String id;

		Entity(String id) {
			this.id = id;
		}

		String id() {
			return this.id;
		}

	}

	@Idempotent(key = "#p0")
	static class Account implements Cloneable {

		private final AtomicInteger runs = new AtomicInteger();

		public int debit(String key) {
			return this.runs.incrementAndGet();
		}

		@Override
		public String toString() {
			return "Account " + this.runs.incrementAndGet();
		}

		@Override
		public boolean equals(Object other) {
			return this == other;
		}

		@Override
		public int hashCode() {
			return System.identityHashCode(this);
		}

		@Override
		public Account clone() throws CloneNotSupportedException {
			return (Account) super.clone();
		}

		@Override
		@SuppressWarnings({ "deprecation", "removal" })
		protected void finalize() {
		}

	}

	static class IdempotentToString {

		@Idempotent(key = "'constant'")
		@Override
		public String toString() {
			return "x";
		}

	}

	static class IdempotentEquals {

		@Idempotent(key = "#id")
		public String charge(String id) {
			return id;
		}

		@Idempotent(key = "#other")
		@Override
		public boolean equals(Object other) {
			return this == other;
		}

		@Override
		public int hashCode() {
			return 1;
		}

	}

	static class SeparatorInName {

		@Idempotent(name = "orders:refund", key = "#id")
		public String refund(String id) {
			return id;
		}

	}

	static class WhitespaceInName {

		@Idempotent(name = "orders refund", key = "#id")
		public String refund(String id) {
			return id;
		}

	}

	@Idempotent(name = "orders:", key = "#id")
	static class SeparatorInTypeName {

		public String debit(String id) {
			return id;
		}

	}

	static class BadSyntax {

		@Idempotent(key = "#event.id +")
		public String handle(Event event) {
			return "x";
		}

	}

	static class UnknownParameter {

		@Idempotent(key = "#evnt.id")
		public String handle(Event event) {
			return "x";
		}

	}

	static class ObjectReturn {

		@Idempotent(key = "#key")
		public Object handle(String key) {
			return "x";
		}

	}

}
