package dev.idempotency.codec;

import java.lang.reflect.Method;
import java.time.Instant;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.codec.ResultCodec.TypedCodec;

import org.springframework.core.ResolvableType;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class SubclassResultTests {

	private static final String BASE = Base.class.getName();

	private static final String SUB = Sub.class.getName();

	private final JacksonResultCodec codec = new JacksonResultCodec();

	@Test
	void resultOfASubclassOfTheDeclaredClassCannotBeEncoded() {
		TypedCodec codec = codecFor("base");
		String reason = "its result is a " + SUB + ", a subclass of the declared " + BASE
				+ ", whose extra fields would be lost on replay";
		assertThatExceptionOfType(UnreplayableResultException.class).isThrownBy(() -> codec.encode(new Sub("a", 1)))
			.withMessage(reason)
			.satisfies((ex) -> {
				assertThat(ex.getValueClass()).isEqualTo(Sub.class);
				assertThat(ex.getDeclaredClass()).isEqualTo(Base.class);
			});
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> codec.encode(new Sub("a", 1), 1024))
			.withMessage(reason);
	}

	@Test
	void resultOfTheDeclaredClassRoundTrips() {
		TypedCodec codec = codecFor("base");
		Base base = new Base("a");
		assertThat(codec.decode(codec.encode(base, 1024))).isEqualTo(base);
		assertThat(codec.decode(codec.encode(null, 1024))).isNull();
	}

	@Test
	void subclassElementOfACollectionCannotBeEncoded() {
		List<Base> bases = List.of(new Base("a"), new Sub("b", 2));
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> codecFor("bases").encode(bases, 1024))
			.withMessage("its result holds a " + SUB + ", a subclass of " + BASE + " as declared in java.util.List<"
					+ BASE + ">, whose extra fields would be lost on replay");
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> codecFor("baseSet").encode(new LinkedHashSet<>(bases), 1024))
			.withMessageContaining("as declared in java.util.Set<" + BASE + ">");
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> codecFor("baseCollection").encode(bases, 1024))
			.withMessageContaining("its result holds a " + SUB);
	}

	@Test
	void subclassInMapsOptionalsArraysAndNestedContainersCannotBeEncoded() {
		Sub sub = new Sub("b", 2);
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> codecFor("basesByName").encode(Map.of("b", sub), 1024))
			.withMessageContaining("as declared in java.util.Map<java.lang.String," + BASE + ">");
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> codecFor("maybeBase").encode(Optional.of(sub), 1024))
			.withMessageContaining("as declared in java.util.Optional<" + BASE + ">");
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> codecFor("baseArray").encode(new Base[] { new Base("a"), sub }, 1024))
			.withMessageContaining("as declared in [L" + BASE + ";");
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> codecFor("nested").encode(List.of(Map.of("k", Optional.of(sub))), 1024))
			.withMessageContaining("its result holds a " + SUB);
	}

	@Test
	void containersOfTheDeclaredClassRoundTrip() {
		Base base = new Base("a");
		assertThat(roundTrip("bases", List.of(base))).isEqualTo(List.of(base));
		assertThat(roundTrip("baseSet", Set.of(base))).isEqualTo(Set.of(base));
		assertThat(roundTrip("basesByName", Map.of("a", base))).isEqualTo(Map.of("a", base));
		assertThat(roundTrip("maybeBase", Optional.of(base))).isEqualTo(Optional.of(base));
		assertThat(roundTrip("maybeBase", Optional.empty())).isEqualTo(Optional.empty());
		assertThat(roundTrip("baseArray", new Base[] { base, null })).isEqualTo(new Base[] { base, null });
		List<Base> withNull = new ArrayList<>();
		withNull.add(null);
		assertThat(roundTrip("bases", withNull)).isEqualTo(withNull);
	}

	@Test
	void valueOfAnotherClassInAPollutedCollectionIsNamed() {
		JsonMapper mapper = JsonMapper.builder().build();
		SubclassCheck check = SubclassCheck.forType(mapper.constructType(returnType("bases").getType()),
				new DecodingIntrospector(mapper));
		assertThat(check).isNotNull();
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> check.check(List.of("not a base")))
			.withMessage("its result holds a java.lang.String, not a " + BASE + " as declared in java.util.List<" + BASE
					+ ">");
	}

	@Test
	void subclassValueOfABeanPropertyCannotBeEncoded() {
		TypedCodec codec = codecFor("order");
		// Would be stored as {"item":{"name":"b","extra":2}} and replayed as a Base
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> codec.encode(new Order(new Sub("b", 2)), 1024))
			.withMessage(
					"its result holds a " + SUB + ", a subclass of " + BASE + " as declared for property 'item' of "
							+ Order.class.getName() + ", whose extra fields would be lost on replay");
		assertThat(codec.decode(codec.encode(new Order(new Base("a")), 1024))).isEqualTo(new Order(new Base("a")));
		assertThat(codec.decode(codec.encode(new Order(null), 1024))).isEqualTo(new Order(null));
	}

	@Test
	void subclassValuesInsideContainersAndBeansOfBeanPropertiesCannotBeEncoded() {
		Sub sub = new Sub("b", 2);
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> codecFor("basket").encode(new Basket(List.of(new Base("a"), sub)), 1024))
			.withMessageContaining(BASE + " as declared in java.util.List<" + BASE + "> for property 'items' of "
					+ Basket.class.getName());
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> codecFor("orders").encode(List.of(new Order(sub)), 1024))
			.withMessageContaining("its result holds a " + SUB);
		Holder holder = new Holder();
		holder.order = new Order(sub);
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> codecFor("holder").encode(holder, 1024))
			.withMessageContaining("as declared for property 'item' of " + Order.class.getName());
	}

	@Test
	void subclassElementOfADeclaredIterableCannotBeEncoded() {
		TypedCodec codec = codecFor("baseIterable");
		assertThatExceptionOfType(UnreplayableResultException.class)
			.isThrownBy(() -> codec.encode(List.of(new Sub("b", 2)), 1024))
			.withMessageContaining("as declared in java.lang.Iterable<" + BASE + ">");
		assertThat(codec.decode(codec.encode(List.of(new Base("a")), 1024)))
			.asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.iterable(Base.class))
			.containsExactly(new Base("a"));
	}

	@Test
	void subclassValueOfARecursiveTypeIsFoundAtAnyDepth() {
		TypedCodec codec = codecFor("chain");
		Link deep = new Link(new Base("a"), new Link(new Base("b"), new Link(new Sub("c", 3), null)));
		assertThatExceptionOfType(UnreplayableResultException.class).isThrownBy(() -> codec.encode(deep, 1024))
			.withMessageContaining("its result holds a " + SUB);
		Link plain = new Link(new Base("a"), new Link(new Base("b"), null));
		assertThat(codec.decode(codec.encode(plain, 1024))).isEqualTo(plain);
	}

	@Test
	void subclassOfAClassWithTypeInformationRoundTrips() {
		TypedCodec codec = codecFor("typedBases");
		List<TypedBase> values = List.of(new TypedBase(), new TypedSub());
		assertThat(codec.decode(codec.encode(values, 1024)))
			.asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.list(TypedBase.class))
			.extracting(Object::getClass)
			.containsExactly(TypedBase.class, TypedSub.class);
	}

	@Test
	void subclassOfAClassWithADeserializerOfItsOwnIsTrusted() {
		assertThat(codecFor("custom").encode(new CustomSub(), 1024)).isNotEmpty();
	}

	@Test
	void hugeContainerIsNotWalkedBeforeItsSizeIsChecked() {
		AtomicLong pulled = new AtomicLong();
		List<Base> lazy = new AbstractList<>() {

			@Override
			public Base get(int index) {
				pulled.incrementAndGet();
				return new Base("b");
			}

			@Override
			public int size() {
				return 1_000_000_000;
			}

		};
		assertThatExceptionOfType(ResultTooLargeException.class)
			.isThrownBy(() -> codecFor("bases").encode(lazy, 10_000));
		assertThat(pulled).hasValueLessThan(10_000);
	}

	@Test
	void onlyTypesThatCanHoldASubclassValueAreChecked() {
		JsonMapper mapper = JsonMapper.builder().build();
		DecodingIntrospector introspector = new DecodingIntrospector(mapper);
		for (String method : List.of("string", "boxedInteger", "primitiveLong", "instant", "record", "records",
				"recordsByName", "enumValue", "plainValues", "intArray", "typedBases", "custom", "numbers",
				"nestedRecord", "plainTree")) {
			JavaType type = mapper.constructType(returnType(method).getType());
			assertThat(SubclassCheck.forType(type, introspector)).as(method).isNull();
		}
		for (String method : List.of("base", "bases", "basesByName", "maybeBase", "baseArray", "nested", "order",
				"orders", "basket", "holder", "baseIterable", "chain")) {
			JavaType type = mapper.constructType(returnType(method).getType());
			assertThat(SubclassCheck.forType(type, introspector)).as(method).isNotNull();
		}
	}

	private Object roundTrip(String methodName, Object value) {
		TypedCodec codec = codecFor(methodName);
		return codec.decode(codec.encode(value, 1024));
	}

	private TypedCodec codecFor(String methodName) {
		return this.codec.forType(returnType(methodName));
	}

	private static ResolvableType returnType(String methodName) {
		Method method = ReflectionUtils.findMethod(Samples.class, methodName);
		assertThat(method).as(methodName).isNotNull();
		return ResolvableType.forMethodReturnType(method);
	}

	static class Base {

		public String name;

		Base() {
		}

		Base(String name) {
			this.name = name;
		}

		@Override
		public boolean equals(Object other) {
			return other != null && other.getClass() == getClass() && ((Base) other).name.equals(this.name);
		}

		@Override
		public int hashCode() {
			return this.name.hashCode();
		}

	}

	static class Sub extends Base {

		public int extra;

		Sub(String name, int extra) {
			super(name);
			this.extra = extra;
		}

	}

	@JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
	@JsonSubTypes({ @JsonSubTypes.Type(value = TypedBase.class, name = "base"),
			@JsonSubTypes.Type(value = TypedSub.class, name = "sub") })
	static class TypedBase {

	}

	static class TypedSub extends TypedBase {

	}

	@JsonDeserialize(using = CustomDeserializer.class)
	static class Custom {

		public String value = "x";

	}

	static class CustomSub extends Custom {

	}

	static class CustomDeserializer extends ValueDeserializer<Custom> {

		@Override
		public Custom deserialize(JsonParser parser, DeserializationContext context) {
			parser.skipChildren();
			return new CustomSub();
		}

	}

	record Plain(String value) {
	}

	record NestedRecord(Plain plain, List<Plain> plains, Instant at, Color color, Map<String, Object> extra) {
	}

	record PlainTree(String name, List<PlainTree> children) {
	}

	record Order(Base item) {
	}

	record Basket(List<Base> items) {
	}

	static class Holder {

		public Order order;

		@Override
		public boolean equals(Object other) {
			return other instanceof Holder holder && java.util.Objects.equals(holder.order, this.order);
		}

		@Override
		public int hashCode() {
			return java.util.Objects.hashCode(this.order);
		}

	}

	record Link(Base value, Link next) {
	}

	enum Color {

		RED

	}

	interface Samples {

		Base base();

		List<Base> bases();

		Set<Base> baseSet();

		Collection<Base> baseCollection();

		Map<String, Base> basesByName();

		Optional<Base> maybeBase();

		Base[] baseArray();

		List<Map<String, Optional<Base>>> nested();

		List<TypedBase> typedBases();

		Custom custom();

		String string();

		Integer boxedInteger();

		long primitiveLong();

		Instant instant();

		Plain record();

		List<Plain> records();

		Map<String, Plain> recordsByName();

		Color enumValue();

		Map<String, Object> plainValues();

		int[] intArray();

		List<Number> numbers();

		NestedRecord nestedRecord();

		PlainTree plainTree();

		Order order();

		List<Order> orders();

		Basket basket();

		Holder holder();

		Iterable<Base> baseIterable();

		Link chain();

	}

}
