package dev.idempotency.codec;

import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DefaultTyping;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.jsontype.BasicPolymorphicTypeValidator;

import dev.idempotency.codec.ResultCodec.TypedCodec;

import org.springframework.core.ResolvableType;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.InstanceOfAssertFactories.INT_ARRAY;
import static org.assertj.core.api.InstanceOfAssertFactories.list;

class JacksonResultCodecTests {

	private static final Receipt RECEIPT = new Receipt("r-1", 1250, Instant.parse("2024-05-01T10:15:30Z"));

	private static final Receipt OTHER_RECEIPT = new Receipt("r-2", 99, Instant.parse("2024-05-02T08:00:00Z"));

	private final JacksonResultCodec codec = new JacksonResultCodec();

	@BeforeEach
	void resetGadget() {
		Gadget.instances.set(0);
	}

	@Test
	void recordRoundTrips() {
		assertThat(roundTrip("receipt", RECEIPT)).isEqualTo(RECEIPT);
	}

	@Test
	void listOfRecordsDecodesToRecords() {
		assertThat(roundTrip("receipts", List.of(RECEIPT, OTHER_RECEIPT))).asInstanceOf(list(Receipt.class))
			.containsExactly(RECEIPT, OTHER_RECEIPT);
	}

	@Test
	void mapOfListsRoundTrips() {
		Map<String, List<Integer>> value = new LinkedHashMap<>();
		value.put("odd", List.of(1, 3));
		value.put("even", List.of(2, 4));
		assertThat(roundTrip("mapOfLists", value)).isEqualTo(value);
	}

	@Test
	void optionalRoundTrips() {
		assertThat(roundTrip("optionalReceipt", Optional.of(RECEIPT))).isEqualTo(Optional.of(RECEIPT));
	}

	@Test
	void emptyOptionalRoundTripsAsEmptyOptional() {
		assertThat(roundTrip("optionalReceipt", Optional.empty())).isEqualTo(Optional.empty());
	}

	@Test
	void primitivesRoundTripBoxed() {
		assertThat(roundTrip("primitiveInt", 42)).isEqualTo(42);
		assertThat(roundTrip("primitiveLong", Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
		assertThat(roundTrip("primitiveBoolean", true)).isEqualTo(true);
	}

	@Test
	void boxedValuesAndStringsRoundTrip() {
		assertThat(roundTrip("boxedInteger", 7)).isEqualTo(7);
		assertThat(roundTrip("boxedLong", 7L)).isEqualTo(7L);
		assertThat(roundTrip("string", "caf\u00e9 \"quoted\"")).isEqualTo("caf\u00e9 \"quoted\"");
		assertThat(roundTrip("bigDecimal", new BigDecimal("12.50"))).isEqualTo(new BigDecimal("12.50"));
	}

	@Test
	void javaTimeValuesRoundTrip() {
		assertThat(roundTrip("instant", Instant.parse("2024-05-01T10:15:30.123456789Z")))
			.isEqualTo(Instant.parse("2024-05-01T10:15:30.123456789Z"));
		assertThat(roundTrip("localDate", LocalDate.of(2024, 2, 29))).isEqualTo(LocalDate.of(2024, 2, 29));
		assertThat(roundTrip("duration", Duration.ofMinutes(90).plusMillis(5)))
			.isEqualTo(Duration.ofMinutes(90).plusMillis(5));
	}

	@Test
	void arraysRoundTrip() {
		assertThat(roundTrip("receiptArray", new Receipt[] { RECEIPT, OTHER_RECEIPT })).isInstanceOfSatisfying(
				Receipt[].class, (array) -> assertThat(array).containsExactly(RECEIPT, OTHER_RECEIPT));
		assertThat(roundTrip("intArray", new int[] { 1, 2, 3 })).asInstanceOf(INT_ARRAY).containsExactly(1, 2, 3);
		assertThat(roundTrip("byteArray", new byte[] { 0, -1, 127 })).isEqualTo(new byte[] { 0, -1, 127 });
	}

	@Test
	void genericArrayDecodesElementsToTheirTypeArguments() {
		List<?>[] value = { List.of(RECEIPT), List.of(OTHER_RECEIPT) };
		Object decoded = roundTrip("listArray", value);
		assertThat(decoded).isInstanceOf(List[].class);
		assertThat(((List<?>[]) decoded)[1]).asInstanceOf(list(Receipt.class)).containsExactly(OTHER_RECEIPT);
	}

	@Test
	void enumRoundTrips() {
		assertThat(roundTrip("status", Status.REFUNDED)).isSameAs(Status.REFUNDED);
	}

	@Test
	void nestedGenericsRoundTrip() {
		Map<Status, List<Optional<Receipt>>> value = Map.of(Status.PAID,
				List.of(Optional.of(RECEIPT), Optional.empty()));
		assertThat(roundTrip("nested", value)).isEqualTo(value);
	}

	@Test
	void genericRecordDecodesItsTypeArgument() {
		Page<Receipt> page = new Page<>(List.of(RECEIPT), 1);
		assertThat(roundTrip("page", page)).isEqualTo(page);
	}

	@Test
	void typeVariableResolvesAgainstTheImplementationClass() {
		Method find = method(Repository.class, "find");
		Method findAll = method(Repository.class, "findAll");
		TypedCodec one = this.codec.forType(ResolvableType.forMethodReturnType(find, ReceiptRepository.class));
		TypedCodec all = this.codec.forType(ResolvableType.forMethodReturnType(findAll, ReceiptRepository.class));
		assertThat(one.decode(one.encode(RECEIPT))).isEqualTo(RECEIPT);
		assertThat(all.decode(all.encode(List.of(RECEIPT)))).asInstanceOf(list(Receipt.class)).containsExactly(RECEIPT);
	}

	@Test
	void boundedTypeVariableResolvedToItsBoundIsAccepted() {
		Method find = method(BoundedRepository.class, "find");
		TypedCodec codec = this.codec.forType(ResolvableType.forMethodReturnType(find, BoundedReceiptRepository.class));
		assertThat(codec.decode(codec.encode(RECEIPT))).isEqualTo(RECEIPT);
	}

	@Test
	void nullRoundTripsAsNull() {
		TypedCodec codec = codecFor("receipt");
		assertThat(codec.encode(null)).asString(StandardCharsets.UTF_8).isEqualTo("null");
		assertThat(codec.decode(codec.encode(null))).isNull();
		assertThat(roundTrip("receipts", null)).isNull();
	}

	@Test
	void voidTypesStoreNothingAndReplayNull() {
		for (String name : List.of("nothing", "boxedNothing")) {
			TypedCodec codec = codecFor(name);
			assertThat(codec.encode(null)).isEmpty();
			assertThat(codec.decode(new byte[0])).isNull();
		}
	}

	@Test
	void encodingIsCompactEvenWhenTheMapperIndents() {
		JsonMapper indenting = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
		TypedCodec codec = new JacksonResultCodec(indenting).forType(returnType("receipt"));
		assertThat(codec.encode(RECEIPT)).asString(StandardCharsets.UTF_8)
			.isEqualTo("{\"id\":\"r-1\",\"amountCents\":1250,\"issuedAt\":\"2024-05-01T10:15:30Z\"}");
	}

	@Test
	void objectIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("object"))
			.withMessage("declared return type Object cannot be replayed safely; declare a concrete type");
	}

	@Test
	void typeVariableResolvedToObjectIsRejected() {
		Method find = method(Repository.class, "find");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.codec.forType(ResolvableType.forMethodReturnType(find, ObjectRepository.class)))
			.withMessageContaining("Object cannot be replayed safely");
	}

	@Test
	void unresolvedTypeVariableIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("unresolved"))
			.withMessage("declared return type T cannot be replayed safely: type variable T cannot be resolved; "
					+ "declare a concrete type");
	}

	@Test
	void unresolvedBoundedTypeVariableIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("unresolvedBounded"))
			.withMessageContaining("type variable T cannot be resolved");
	}

	@Test
	void typeVariableOfAGenericClassWithoutImplementationClassIsRejected() {
		Method findAll = method(Repository.class, "findAll");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.codec.forType(ResolvableType.forMethodReturnType(findAll)))
			.withMessage("declared return type java.util.List<T> cannot be replayed safely: "
					+ "type variable T cannot be resolved; declare a concrete type");
	}

	@Test
	void unboundedWildcardIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("wildcardList"))
			.withMessageContaining("wildcard ? cannot be resolved");
	}

	@Test
	void rawGenericTypeIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> codecFor("rawList"))
			.withMessageContaining("raw type java.util.List has no type arguments");
	}

	@Test
	void boundedWildcardDecodesToItsBound() {
		assertThat(roundTrip("boundedWildcardList", List.of(RECEIPT))).asInstanceOf(list(Receipt.class))
			.containsExactly(RECEIPT);
	}

	@Test
	void objectAsTypeArgumentDecodesToPlainJsonValues() {
		Object decoded = codecFor("mapOfObjects").decode(bytes("{\"receipt\":{\"id\":\"r-1\"},\"count\":2}"));
		assertThat(decoded).isEqualTo(Map.of("receipt", Map.of("id", "r-1"), "count", 2));
	}

	@Test
	void decodingJsonOfAnotherShapeFails() {
		assertThatExceptionOfType(JacksonException.class)
			.isThrownBy(() -> codecFor("receipt").decode(bytes("{\"id\":\"r-1\",\"amountCents\":\"lots\"}")));
		assertThatExceptionOfType(JacksonException.class).isThrownBy(() -> codecFor("receipt").decode(bytes("[1,2]")));
		assertThatExceptionOfType(JacksonException.class)
			.isThrownBy(() -> codecFor("receipts").decode(bytes("{\"id\":\"r-1\"}")));
		assertThatExceptionOfType(JacksonException.class)
			.isThrownBy(() -> codecFor("primitiveInt").decode(bytes("\"x\"")));
		assertThatExceptionOfType(JacksonException.class)
			.isThrownBy(() -> codecFor("primitiveInt").decode(bytes("null")));
		assertThatExceptionOfType(JacksonException.class).isThrownBy(() -> codecFor("receipt").decode(new byte[0]));
	}

	@Test
	void classNamePropertyInStoredJsonIsNeverInstantiated() {
		String json = "{\"@class\":\"java.lang.ProcessBuilder\",\"id\":\"r-1\",\"amountCents\":1250,"
				+ "\"issuedAt\":\"2024-05-01T10:15:30Z\"}";
		assertThat(codecFor("receipt").decode(bytes(json))).isEqualTo(RECEIPT);
		String gadget = "{\"@class\":\"" + Gadget.class.getName() + "\",\"payload\":{\"@class\":\""
				+ Gadget.class.getName() + "\"}}";
		assertThat(codecFor("envelope").decode(bytes(gadget))).isInstanceOf(Envelope.class);
		assertThat(Gadget.instances).hasValue(0);
	}

	@Test
	void typeIdArrayInStoredJsonIsNeverInstantiated() {
		assertThatExceptionOfType(JacksonException.class).isThrownBy(() -> codecFor("receipt")
			.decode(bytes("[\"java.lang.ProcessBuilder\",{\"command\":[\"touch\",\"/tmp/pwned\"]}]")));
		String gadget = "[\"" + Gadget.class.getName() + "\",{}]";
		Object decoded = codecFor("envelope").decode(bytes("{\"payload\":" + gadget + "}"));
		assertThat(decoded).isEqualTo(new Envelope(List.of(Gadget.class.getName(), Map.of())));
		assertThat(codecFor("mapOfObjects").decode(bytes("{\"gadget\":" + gadget + "}")))
			.isEqualTo(Map.of("gadget", List.of(Gadget.class.getName(), Map.of())));
		assertThat(Gadget.instances).hasValue(0);
	}

	@Test
	void defaultTypingOfTheApplicationMapperIsSwitchedOff() {
		JsonMapper unsafe = JsonMapper.builder()
			.activateDefaultTyping(BasicPolymorphicTypeValidator.builder().allowIfSubType(Object.class).build(),
					DefaultTyping.JAVA_LANG_OBJECT)
			.build();
		String json = "{\"payload\":[\"" + Gadget.class.getName() + "\",{}]}";
		JavaType envelopeType = unsafe.constructType(Envelope.class);
		assertThat(unsafe.readerFor(envelopeType).<Envelope>readValue(bytes(json)).payload())
			.isInstanceOf(Gadget.class);
		assertThat(Gadget.instances).hasValue(1);
		TypedCodec codec = new JacksonResultCodec(unsafe).forType(returnType("envelope"));
		assertThat(codec.decode(bytes(json))).isEqualTo(new Envelope(List.of(Gadget.class.getName(), Map.of())));
		assertThat(codec.encode(new Envelope(List.of(1)))).asString(StandardCharsets.UTF_8)
			.isEqualTo("{\"payload\":[1]}");
		assertThat(Gadget.instances).hasValue(1);
	}

	@Test
	void valueWithThrowingGetterCannotBeEncoded() {
		assertThatExceptionOfType(RuntimeException.class)
			.isThrownBy(() -> codecFor("exploding").encode(new Exploding()))
			.withStackTraceContaining("boom");
	}

	@Test
	void selfReferencingValueCannotBeEncoded() {
		Node node = new Node();
		node.next = node;
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> codecFor("node").encode(node));
		List<Object> list = new ArrayList<>();
		list.add(list);
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> codecFor("listOfObjects").encode(list));
	}

	@Test
	void codecNamesItsType() {
		assertThat(codecFor("receipts"))
			.hasToString("JacksonTypedCodec[java.util.List<dev.idempotency.codec.JacksonResultCodecTests$Receipt>]");
	}

	private Object roundTrip(String methodName, Object value) {
		TypedCodec codec = codecFor(methodName);
		return codec.decode(codec.encode(value));
	}

	private TypedCodec codecFor(String methodName) {
		return this.codec.forType(returnType(methodName));
	}

	private static ResolvableType returnType(String methodName) {
		return ResolvableType.forMethodReturnType(method(Samples.class, methodName));
	}

	private static Method method(Class<?> type, String name) {
		Method method = ReflectionUtils.findMethod(type, name);
		assertThat(method).as(name).isNotNull();
		return method;
	}

	private static byte[] bytes(String json) {
		return json.getBytes(StandardCharsets.UTF_8);
	}

	record Receipt(String id, long amountCents, Instant issuedAt) {
	}

	record Page<T>(List<T> items, int total) {
	}

	record Envelope(Object payload) {
	}

	enum Status {

		PAID, REFUNDED

	}

	public static class Gadget {

		static final AtomicInteger instances = new AtomicInteger();

		public Gadget() {
			instances.incrementAndGet();
		}

	}

	static class Exploding {

		public String getValue() {
			throw new IllegalStateException("boom");
		}

	}

	static class Node {

		public Node next;

	}

	interface Samples {

		Receipt receipt();

		List<Receipt> receipts();

		Map<String, List<Integer>> mapOfLists();

		Optional<Receipt> optionalReceipt();

		int primitiveInt();

		long primitiveLong();

		boolean primitiveBoolean();

		Integer boxedInteger();

		Long boxedLong();

		String string();

		BigDecimal bigDecimal();

		Instant instant();

		LocalDate localDate();

		Duration duration();

		Receipt[] receiptArray();

		int[] intArray();

		byte[] byteArray();

		List<Receipt>[] listArray();

		Status status();

		Map<Status, List<Optional<Receipt>>> nested();

		Page<Receipt> page();

		void nothing();

		Void boxedNothing();

		Object object();

		<T> T unresolved();

		<T extends Receipt> T unresolvedBounded();

		List<?> wildcardList();

		@SuppressWarnings("rawtypes")
		List rawList();

		List<? extends Receipt> boundedWildcardList();

		Map<String, Object> mapOfObjects();

		List<Object> listOfObjects();

		Envelope envelope();

		Exploding exploding();

		Node node();

	}

	abstract static class Repository<T> {

		abstract T find();

		abstract List<T> findAll();

	}

	abstract static class ReceiptRepository extends Repository<Receipt> {

	}

	abstract static class ObjectRepository extends Repository<Object> {

	}

	abstract static class BoundedRepository<T extends Receipt> {

		abstract T find();

	}

	abstract static class BoundedReceiptRepository extends BoundedRepository<Receipt> {

	}

}
