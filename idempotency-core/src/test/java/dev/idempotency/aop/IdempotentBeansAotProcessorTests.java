package dev.idempotency.aop;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The hints derived ahead of time from the application's {@code @Idempotent} methods:
 * each is what a native image would otherwise lack (a record result written as
 * {@code {}}, a key such as {@code #event.customer.id} failing with {@code EL1004E}, a
 * replayed failure that cannot be made).
 */
class IdempotentBeansAotProcessorTests {

	@Test
	void processorAndRegistrarAreFoundThroughAotFactories() {
		assertThat(AotServices.factories().load(BeanFactoryInitializationAotProcessor.class))
			.hasAtLeastOneElementOfType(IdempotentBeansAotProcessor.class);
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.hasAtLeastOneElementOfType(IdempotentRuntimeHints.class);
	}

	@Test
	void keyRootIsReadableByExpressions() {
		RuntimeHints hints = new RuntimeHints();
		new IdempotentRuntimeHints().registerHints(hints, getClass().getClassLoader());
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(KeyRoot.class, "getArgs")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(KeyRoot.class, "getMethodName"))
			.accepts(hints);
	}

	@Test
	void typesOfCommonKeyValuesAreQueryable() {
		// Whether a key's string is stable is judged by asking its class for toString():
		// a key #orderId of a long, or #event.amountCents of a record, is a Long that
		// no parameter's hints register
		RuntimeHints hints = new RuntimeHints();
		new IdempotentRuntimeHints().registerHints(hints, getClass().getClassLoader());
		for (Class<?> type : List.of(Long.class, Integer.class, Short.class, Byte.class, Character.class, Boolean.class,
				Double.class, Float.class, java.util.UUID.class, java.math.BigDecimal.class,
				java.math.BigInteger.class)) {
			assertThat(RuntimeHintsPredicates.reflection().onType(type)).as(type.getName()).accepts(hints);
		}
	}

	@Test
	void methodResultParametersAndReplayedFailuresOfABeanAreRegistered() throws NoSuchMethodException {
		RuntimeHints hints = process(Payments.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method(Payments.class, "charge")))
			.accepts(hints);
		// The result, and the types its properties reach
		assertThat(binding(Receipt.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Receipt.class, "amount")).accepts(hints);
		assertThat(binding(Money.class)).accepts(hints);
		// The parameter, navigated by the key #event.customer.id
		assertThat(binding(PaymentEvent.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(PaymentEvent.class, "customer"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Customer.class, "id")).accepts(hints);
		// Any public method of an argument, not only its properties: #event.routingKey()
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(PaymentEvent.class)
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(hints);
		// The replayed failure's (String) constructor
		assertThat(RuntimeHintsPredicates.reflection()
			.onConstructorInvocation(Declined.class.getConstructor(String.class))).accepts(hints);
	}

	@Test
	void valueOfAStageAndElementsOfACollectionAreRegistered() {
		RuntimeHints hints = process(Payments.class);
		assertThat(binding(Refund.class)).accepts(hints);
		assertThat(binding(Ledger.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Ledger.class, "getEntries")).accepts(hints);
		assertThat(binding(Entry.class)).accepts(hints);
	}

	@Test
	void methodsOfAnAnnotatedTypeAGenericHandlerAndAnInterfaceAreRegistered() {
		RuntimeHints hints = process(TypeLevel.class, ReceiptHandler.class, Shipments.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method(TypeLevel.class, "settle")))
			.accepts(hints);
		assertThat(binding(Settlement.class)).accepts(hints);
		// T of a generic superclass, resolved against the bean's class
		assertThat(binding(Invoice.class)).accepts(hints);
		// Annotated on an interface the bean implements
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method(Shipments.class, "ship")))
			.accepts(hints);
		assertThat(binding(Shipment.class)).accepts(hints);
	}

	@Test
	void frameworkParametersGetTheirPublicMethodsAndTheirTypeArgumentsBinding() {
		RuntimeHints hints = process(Payments.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Message.class, "getPayload")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Customer.class, "id")).accepts(hints);
		// Not walked as a bean: its getters reach the whole of MessageHeaders
		assertThat(RuntimeHintsPredicates.reflection().onType(MessageHeaders.class)).rejects(hints);
	}

	@Test
	void beansWithoutIdempotentMethodsContributeNothing() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("plain", new RootBeanDefinition(Plain.class));
		assertThat(new IdempotentBeansAotProcessor().processAheadOfTime(beanFactory)).isNull();
		RuntimeHints hints = process(Payments.class, Plain.class);
		assertThat(RuntimeHintsPredicates.reflection().onType(Unrelated.class)).rejects(hints);
	}

	@Test
	void beanWhoseMethodsNameAMissingTypeIsSkippedAndTheBuildGoesOn() throws Exception {
		// Loaded apart from its return type, as a class of an optional dependency's
		// absence: its declared methods cannot be listed
		ClassLoader loader = new ChildFirstLoader(getClass().getClassLoader(), NeedsMissing.class.getName());
		Class<?> needsMissing = loader.loadClass(NeedsMissing.class.getName());
		assertThatExceptionOfType(NoClassDefFoundError.class).isThrownBy(needsMissing::getDeclaredMethods);
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("needsMissing", new RootBeanDefinition(needsMissing));
		beanFactory.registerBeanDefinition("payments", new RootBeanDefinition(Payments.class));
		BeanFactoryInitializationAotContribution contribution = new IdempotentBeansAotProcessor()
			.processAheadOfTime(beanFactory);
		assertThat(contribution).isNotNull();
		TestGenerationContext generationContext = new TestGenerationContext();
		contribution.applyTo(generationContext, null);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method(Payments.class, "charge")))
			.accepts(generationContext.getRuntimeHints());
	}

	@Test
	void productOfAFactoryBeanIsRegistered() {
		// What the auto-proxy creator proxies is the object the factory makes
		RuntimeHints hints = process(PaymentsFactory.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method(Payments.class, "charge")))
			.accepts(hints);
		assertThat(binding(Receipt.class)).accepts(hints);
	}

	@Test
	void subtypesThatJacksonDecodesAPolymorphicResultAsAreRegistered() {
		RuntimeHints hints = process(Drawings.class);
		// Named by @JsonSubTypes, the result's and a property's
		assertThat(binding(Circle.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Circle.class, "radius")).accepts(hints);
		assertThat(binding(Square.class)).accepts(hints);
		assertThat(binding(Dot.class)).accepts(hints);
		// Permitted by a sealed interface, which Jackson 3 reads its subtypes from
		assertThat(binding(Card.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Card.class, "last4")).accepts(hints);
		assertThat(binding(Transfer.class)).accepts(hints);
	}

	private static Predicate<RuntimeHints> binding(Class<?> type) {
		return RuntimeHintsPredicates.reflection()
			.onType(type)
			.withMemberCategories(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS, MemberCategory.ACCESS_DECLARED_FIELDS);
	}

	private static Method method(Class<?> type, String name) {
		return ReflectionUtils.findMethod(type, name, (Class<?>[]) null);
	}

	private static RuntimeHints process(Class<?>... beanClasses) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		for (Class<?> beanClass : beanClasses) {
			beanFactory.registerBeanDefinition(beanClass.getSimpleName(), new RootBeanDefinition(beanClass));
		}
		BeanFactoryInitializationAotContribution contribution = new IdempotentBeansAotProcessor()
			.processAheadOfTime(beanFactory);
		assertThat(contribution).isNotNull();
		TestGenerationContext generationContext = new TestGenerationContext();
		contribution.applyTo(generationContext, null);
		return generationContext.getRuntimeHints();
	}

	static class Payments {

		@Idempotent(key = "#event.customer.id + ':' + #event.routingKey()", replayFailures = Declined.class)
		public Receipt charge(PaymentEvent event) {
			return new Receipt(event.customer().id(), new Money(1, "EUR"));
		}

		@Idempotent(key = "#id")
		public CompletableFuture<List<Refund>> refund(String id) {
			return CompletableFuture.completedFuture(List.of());
		}

		@Idempotent(key = "#message.payload.customer.id")
		public String consume(Message<PaymentEvent> message) {
			return "consumed";
		}

		@Idempotent(key = "#id")
		public Map<String, Ledger> ledgers(String id) {
			return Map.of();
		}

	}

	@Idempotent(key = "#id")
	static class TypeLevel {

		public Settlement settle(String id) {
			return new Settlement(id);
		}

	}

	abstract static class Handler<T> {

		@Idempotent(key = "#id")
		public abstract T handle(String id);

	}

	static class ReceiptHandler extends Handler<Invoice> {

		@Override
		public Invoice handle(String id) {
			return new Invoice(id);
		}

	}

	interface ShipmentService {

		@Idempotent(key = "#id")
		Shipment ship(String id);

	}

	static class Shipments implements ShipmentService {

		@Override
		public Shipment ship(String id) {
			return new Shipment(id);
		}

	}

	record Shipment(String id) {
	}

	static class Plain {

		public Unrelated work() {
			return new Unrelated();
		}

	}

	record PaymentEvent(Customer customer, long cents) {

		public String routingKey() {
			return "payments";
		}

	}

	record Customer(String id) {
	}

	record Receipt(String customer, Money amount) {
	}

	record Money(long cents, String currency) {
	}

	record Refund(String id) {
	}

	record Settlement(String id) {
	}

	record Invoice(String id) {
	}

	static class Ledger {

		private List<Entry> entries = List.of();

		public List<Entry> getEntries() {
			return this.entries;
		}

		public void setEntries(List<Entry> entries) {
			this.entries = entries;
		}

	}

	record Entry(long cents) {
	}

	static class NeedsMissing {

		@Idempotent(key = "#id")
		public Missing find(String id) {
			return new Missing();
		}

	}

	static class Missing {

	}

	/**
	 * Defines one class itself, from the test's class files, and refuses {@link Missing}.
	 */
	static class ChildFirstLoader extends ClassLoader {

		private final String name;

		ChildFirstLoader(ClassLoader parent, String name) {
			super(parent);
			this.name = name;
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (name.equals(Missing.class.getName())) {
				throw new ClassNotFoundException(name);
			}
			if (!name.equals(this.name)) {
				return super.loadClass(name, resolve);
			}
			synchronized (getClassLoadingLock(name)) {
				Class<?> loaded = findLoadedClass(name);
				if (loaded != null) {
					return loaded;
				}
				try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
					byte[] bytes = in.readAllBytes();
					return defineClass(name, bytes, 0, bytes.length);
				}
				catch (IOException ex) {
					throw new ClassNotFoundException(name, ex);
				}
			}
		}

	}

	static class PaymentsFactory implements FactoryBean<Payments> {

		@Override
		public Payments getObject() {
			return new Payments();
		}

		@Override
		public Class<?> getObjectType() {
			return Payments.class;
		}

	}

	static class Drawings {

		@Idempotent(key = "#id")
		public Shape draw(String id) {
			return new Circle(1, new Dot(0));
		}

		@Idempotent(key = "#id")
		public CompletableFuture<List<Tender>> pay(String id) {
			return CompletableFuture.completedFuture(List.of());
		}

	}

	@JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
	@JsonSubTypes({ @JsonSubTypes.Type(Circle.class), @JsonSubTypes.Type(Square.class) })
	interface Shape {

	}

	record Circle(int radius, Mark center) implements Shape {
	}

	record Square(int side) implements Shape {
	}

	@JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
	@JsonSubTypes(@JsonSubTypes.Type(Dot.class))
	interface Mark {

	}

	record Dot(int size) implements Mark {
	}

	@JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
	sealed interface Tender permits Card, Transfer {

	}

	record Card(String last4) implements Tender {
	}

	record Transfer(String iban) implements Tender {
	}

	static class Unrelated {

	}

	public static class Declined extends RuntimeException {

		public Declined(String message) {
			super(message);
		}

	}

}
