package dev.idempotency.codec;

import java.io.Serializable;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.Temporal;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonValue;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

import dev.idempotency.codec.ResultCodec.TypedCodec;

import org.springframework.core.ResolvableType;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

class AbstractResultTypeTests {

	private static final String SHAPE = Shape.class.getName();

	private static final Circle CIRCLE = new Circle(1.5);

	private final JacksonResultCodec codec = new JacksonResultCodec();

	@Test
	void interfaceOfTheApplicationIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("shape"))
			.withMessage("declared return type " + SHAPE + " cannot be replayed safely: " + SHAPE
					+ " is an interface without polymorphic type information, so a replay could not restore the "
					+ "class the method returned; declare a concrete type, or add @JsonTypeInfo to " + SHAPE);
	}

	@Test
	void abstractClassOfTheApplicationIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("animal"))
			.withMessageContaining(
					Animal.class.getName() + " is an abstract class without polymorphic type information");
	}

	@Test
	void sealedInterfaceWithoutTypeInformationIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("payment"))
			.withMessageContaining(Payment.class.getName() + " is a sealed interface without polymorphic type");
	}

	@Test
	void abstractElementValueAndContentTypesAreRejected() {
		for (String method : List.of("shapes", "shapeSet", "shapesByName", "maybeShape", "shapeArray",
				"nestedShapes")) {
			assertThatIllegalArgumentException().as(method)
				.isThrownBy(() -> codecFor(method))
				.withMessageStartingWith("declared return type " + returnType(method).getType().getTypeName())
				.withMessageContaining(SHAPE + " is an interface without polymorphic type information");
		}
	}

	@Test
	void jdkInterfaceJacksonCannotDecodeIsRejectedWithoutSuggestingAnAnnotation() {
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("iterator"))
			.withMessage("declared return type java.util.Iterator<java.lang.String> cannot be replayed safely: "
					+ "java.util.Iterator is an interface without polymorphic type information, so a replay could "
					+ "not restore the class the method returned; declare a concrete type");
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("temporal"))
			.withMessageContaining("java.time.temporal.Temporal is an interface");
	}

	@Test
	void interfaceWithTypeInformationRoundTripsItsSubtypes() {
		TypedCodec codec = codecFor("mark");
		assertThat(codec.decode(codec.encode(new Dot(3)))).isEqualTo(new Dot(3));
		assertThat(codec.decode(codec.encode(new Line(7)))).isEqualTo(new Line(7));
		TypedCodec list = codecFor("marks");
		assertThat(list.decode(list.encode(List.of(new Dot(1), new Line(2)))))
			.isEqualTo(List.of(new Dot(1), new Line(2)));
	}

	@Test
	void sealedInterfaceWithTypeInformationRoundTripsItsSubtypes() {
		TypedCodec codec = codecFor("typedPayment");
		assertThat(codec.decode(codec.encode(new Wire("DE00")))).isEqualTo(new Wire("DE00"));
	}

	@Test
	void typeInformationFromAMixInIsFound() {
		JsonMapper mapper = JsonMapper.builder().addMixIn(Shape.class, TypedShape.class).build();
		TypedCodec codec = new JacksonResultCodec(mapper).forType(returnType("shapes"));
		assertThat(codec.decode(codec.encode(List.of(CIRCLE)))).isEqualTo(List.of(CIRCLE));
	}

	@Test
	void abstractTypeMappedToOneImplementationIsRejected() {
		SimpleModule module = new SimpleModule().addAbstractTypeMapping(Shape.class, Circle.class);
		JacksonResultCodec mapping = new JacksonResultCodec(JsonMapper.builder().addModule(module).build());
		assertThatIllegalArgumentException().isThrownBy(() -> mapping.forType(returnType("shape")))
			.withMessageContaining(SHAPE + " is an interface without polymorphic type information");
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("pinned"))
			.withMessageContaining(Pinned.class.getName() + " is an interface without polymorphic type information");
	}

	@Test
	void interfaceWithACreatorOfItsOwnIsAccepted() {
		TypedCodec codec = codecFor("currency");
		assertThat(codec.decode(codec.encode(Currency.of("EUR")))).isEqualTo(Currency.of("EUR"));
	}

	@Test
	void containersJacksonBuildsItselfStaySupported() {
		assertThat(roundTrip("circles", List.of(CIRCLE))).isEqualTo(List.of(CIRCLE));
		assertThat(roundTrip("circleSet", new LinkedHashSet<>(List.of(CIRCLE)))).isEqualTo(Set.of(CIRCLE));
		assertThat(roundTrip("circleCollection", List.of(CIRCLE)))
			.asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.collection(Circle.class))
			.containsExactly(CIRCLE);
		Map<String, Circle> byName = new LinkedHashMap<>(Map.of("c", CIRCLE));
		assertThat(roundTrip("circlesByName", byName)).isEqualTo(byName);
		assertThat(roundTrip("sortedCounts", new TreeMap<>(Map.of("a", 1, "b", 2)))).isEqualTo(Map.of("a", 1, "b", 2));
		assertThat(roundTrip("deque", new ArrayDeque<>(List.of("x", "y"))))
			.asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.collection(String.class))
			.containsExactly("x", "y");
		assertThat(roundTrip("maybeCircle", Optional.of(CIRCLE))).isEqualTo(Optional.of(CIRCLE));
		assertThat(roundTrip("circleArray", new Circle[] { CIRCLE })).isEqualTo(new Circle[] { CIRCLE });
		assertThat(roundTrip("plainValues", Map.of("n", 1))).isEqualTo(Map.of("n", 1));
	}

	@Test
	void serializableIsRejectedLikeObject() {
		// Jackson decodes it to plain JSON values: a record would replay as a map
		for (String method : List.of("serializable", "serializables")) {
			assertThatIllegalArgumentException().as(method)
				.isThrownBy(() -> codecFor(method))
				.withMessageContaining("java.io.Serializable is an interface without polymorphic type information");
		}
	}

	@Test
	void numberIsRejectedSuggestingAConcreteNumberType() {
		// Jackson decodes it to an Integer, Long, BigInteger or Double: a BigDecimal
		// would
		// replay as the Double 1.2345678901234567E19
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("number"))
			.withMessage("declared return type java.lang.Number cannot be replayed safely: java.lang.Number is an "
					+ "abstract class without polymorphic type information, so a replay could not restore the class "
					+ "the method returned; declare a concrete type such as BigDecimal, BigInteger, Long or Double");
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("numbers"))
			.withMessageStartingWith("declared return type java.util.List<java.lang.Number>");
	}

	@Test
	void abstractPropertyTypeWithoutTypeInformationIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("receipt"))
			.withMessage("declared return type " + Receipt.class.getName() + " cannot be replayed safely: " + SHAPE
					+ ", the type of property 'shape' of " + Receipt.class.getName() + ", is an interface without "
					+ "polymorphic type information, so a replay could not restore the class the method returned; "
					+ "declare a concrete type, or add @JsonTypeInfo to " + SHAPE);
		for (String method : List.of("receipts", "shapeBean", "outer", "shapeListHolder", "shapeIterable")) {
			assertThatIllegalArgumentException().as(method)
				.isThrownBy(() -> codecFor(method))
				.withMessageContaining(SHAPE);
		}
	}

	@Test
	void abstractTypeArgumentOfAGenericRecordIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("shapeBox"))
			.withMessageContaining(SHAPE + ", the type of property 'value' of " + Box.class.getName() + "<" + SHAPE
					+ ">, is an interface");
		assertThat(roundTrip("circleBox", new Box<>(CIRCLE))).isEqualTo(new Box<>(CIRCLE));
	}

	@Test
	void propertiesWithTypeInformationOrADeserializerOfTheirOwnAreAccepted() {
		assertThat(roundTrip("markReceipt", new MarkReceipt(new Dot(1)))).isEqualTo(new MarkReceipt(new Dot(1)));
		assertThat(roundTrip("annotatedReceipt", new AnnotatedReceipt(CIRCLE))).isEqualTo(new AnnotatedReceipt(CIRCLE));
		assertThat(roundTrip("pinnedShapeReceipt", new PinnedShapeReceipt(CIRCLE)))
			.isEqualTo(new PinnedShapeReceipt(CIRCLE));
	}

	@Test
	void recursiveTypesAreWalkedOnce() {
		TreeNode tree = new TreeNode("root", List.of(new TreeNode("leaf", List.of())));
		assertThat(roundTrip("tree", tree)).isEqualTo(tree);
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("shapeTree")).withMessageContaining(SHAPE);
	}

	@Test
	void abstractJdkTypesJacksonDecodesStaySupported() {
		assertThat(roundTrip("chars", "text")).isEqualTo("text");
		assertThat(roundTrip("node", JsonMapper.builder().build().readTree("{\"a\":1}")).toString())
			.isEqualTo("{\"a\":1}");
		for (String method : List.of("instant", "localDate", "duration", "decimal")) {
			assertThatNoException().as(method).isThrownBy(() -> codecFor(method));
		}
		assertThat(roundTrip("instant", Instant.EPOCH)).isEqualTo(Instant.EPOCH);
		assertThat(roundTrip("decimal", new BigDecimal("1.50"))).isEqualTo(new BigDecimal("1.50"));
	}

	private Object roundTrip(String methodName, Object value) {
		TypedCodec codec = codecFor(methodName);
		return codec.decode(codec.encode(value));
	}

	private TypedCodec codecFor(String methodName) {
		return this.codec.forType(returnType(methodName));
	}

	private static ResolvableType returnType(String methodName) {
		Method method = ReflectionUtils.findMethod(Samples.class, methodName);
		assertThat(method).as(methodName).isNotNull();
		return ResolvableType.forMethodReturnType(method);
	}

	interface Shape {

	}

	record Circle(double radius) implements Shape {
	}

	abstract static class Animal {

		public String name;

	}

	sealed interface Payment permits Card {

	}

	record Card(String last4) implements Payment {
	}

	@JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
	@JsonSubTypes({ @JsonSubTypes.Type(value = Dot.class, name = "dot"),
			@JsonSubTypes.Type(value = Line.class, name = "line") })
	interface Mark {

	}

	record Dot(int x) implements Mark {
	}

	record Line(int length) implements Mark {
	}

	@JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
	@JsonSubTypes(@JsonSubTypes.Type(value = Wire.class, name = "wire"))
	sealed interface TypedPayment permits Wire {

	}

	record Wire(String iban) implements TypedPayment {
	}

	@JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
	@JsonSubTypes(@JsonSubTypes.Type(value = Circle.class, name = "circle"))
	interface TypedShape {

	}

	@JsonDeserialize(as = Pin.class)
	interface Pinned {

	}

	record Pin(String name) implements Pinned {
	}

	interface Currency {

		@JsonValue
		String code();

		@JsonCreator
		static Currency of(String code) {
			return new IsoCurrency(code);
		}

	}

	record IsoCurrency(String code) implements Currency {
	}

	record Receipt(Shape shape) {
	}

	record Box<T>(T value) {
	}

	static class ShapeBean {

		public Shape shape;

	}

	record Outer(String id, Receipt receipt) {
	}

	record ShapeListHolder(Map<String, List<Shape>> shapes) {
	}

	record MarkReceipt(Mark mark) {
	}

	record AnnotatedReceipt(
			@JsonTypeInfo(use = JsonTypeInfo.Id.NAME) @JsonSubTypes(@JsonSubTypes.Type(value = Circle.class,
					name = "circle")) Shape shape) {
	}

	record PinnedShapeReceipt(@JsonDeserialize(as = Circle.class) Shape shape) {
	}

	record TreeNode(String name, List<TreeNode> children) {
	}

	record ShapeTree(Shape shape, List<ShapeTree> children) {
	}

	interface Samples {

		Receipt receipt();

		List<Receipt> receipts();

		ShapeBean shapeBean();

		Outer outer();

		ShapeListHolder shapeListHolder();

		Iterable<Shape> shapeIterable();

		Box<Shape> shapeBox();

		Box<Circle> circleBox();

		MarkReceipt markReceipt();

		AnnotatedReceipt annotatedReceipt();

		PinnedShapeReceipt pinnedShapeReceipt();

		TreeNode tree();

		ShapeTree shapeTree();

		Serializable serializable();

		List<Serializable> serializables();

		Shape shape();

		Animal animal();

		Payment payment();

		List<Shape> shapes();

		Set<Shape> shapeSet();

		Map<String, Shape> shapesByName();

		Optional<Shape> maybeShape();

		Shape[] shapeArray();

		List<Map<String, Optional<Shape>>> nestedShapes();

		Iterator<String> iterator();

		Temporal temporal();

		Mark mark();

		List<Mark> marks();

		TypedPayment typedPayment();

		Pinned pinned();

		Currency currency();

		List<Circle> circles();

		Set<Circle> circleSet();

		Collection<Circle> circleCollection();

		Map<String, Circle> circlesByName();

		SortedMap<String, Integer> sortedCounts();

		Deque<String> deque();

		Optional<Circle> maybeCircle();

		Circle[] circleArray();

		Map<String, Object> plainValues();

		Number number();

		List<Number> numbers();

		CharSequence chars();

		JsonNode node();

		Instant instant();

		LocalDate localDate();

		Duration duration();

		BigDecimal decimal();

	}

}
