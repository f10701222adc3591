package dev.idempotency.codec;

import java.io.Serializable;
import java.math.BigDecimal;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.idempotency.codec.ResultCodec.TypedCodec;

import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Review of issue 8 item 7: declared result types that pass {@code forType} (startup)
 * although their values cannot round-trip, or that silently lose data on replay.
 */
class RoundTripReviewTests {

	private static final long MAX = 1 << 20;

	private final JacksonResultCodec codec = new JacksonResultCodec();

	@Test
	void serializableAsTheDeclaredTypeFailsAtStartupLikeObject() {
		// Accepted today; every encode then fails ("Incompatible types: declared root
		// type Serializable vs Receipt"), so no result is ever replayable
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.codec.forType(ResolvableType.forClass(Serializable.class)));
	}

	@Test
	void numberAsTheDeclaredTypeDoesNotLoseTheValueOfABigDecimal() {
		BigDecimal amount = new BigDecimal("12345678901234567890.123456789");
		TypedCodec typed;
		try {
			typed = this.codec.forType(ResolvableType.forClass(Number.class));
		}
		catch (IllegalArgumentException refusedAtStartup) {
			return;
		}
		// Today it replays as the Double 1.2345678901234567E19
		assertThat(typed.decode(typed.encode(amount, MAX))).isEqualTo(amount);
	}

	@Test
	void abstractPropertyTypeWithoutTypeInformationFailsAtStartup() {
		// Accepted today; the encode succeeds and every replay fails to decode
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.codec.forType(ResolvableType.forClass(Receipt.class)));
	}

	@Test
	void abstractTypeArgumentOfAGenericRecordFailsAtStartup() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.codec.forType(ResolvableType.forClassWithGenerics(Box.class, Shape.class)));
	}

	@Test
	void subclassValueOfABeanPropertyIsNotStoredWithItsFieldsDropped() {
		TypedCodec typed = this.codec.forType(ResolvableType.forClass(Order.class));
		Order order = new Order(new SpecialItem(1, 2));
		// Today: stored as {"item":{"a":1,"b":2}}, replayed as an Item with b lost
		assertThatExceptionOfType(UnreplayableResultException.class).isThrownBy(() -> typed.encode(order, MAX));
	}

	@Test
	void subclassElementOfADeclaredIterableIsNotStoredWithItsFieldsDropped() {
		TypedCodec typed = this.codec.forType(ResolvableType.forClassWithGenerics(Iterable.class, Item.class));
		List<Item> items = List.of(new SpecialItem(1, 2));
		assertThatExceptionOfType(UnreplayableResultException.class).isThrownBy(() -> typed.encode(items, MAX));
	}

	interface Shape {

	}

	record Circle(double radius) implements Shape {
	}

	record Receipt(Shape shape) {
	}

	record Box<T>(T value) {
	}

	record Order(Item item) {
	}

	static class Item {

		private int a;

		Item() {
		}

		Item(int a) {
			this.a = a;
		}

		public int getA() {
			return this.a;
		}

		public void setA(int a) {
			this.a = a;
		}

	}

	static class SpecialItem extends Item {

		private int b;

		SpecialItem(int a, int b) {
			super(a);
			this.b = b;
		}

		public int getB() {
			return this.b;
		}

	}

}
