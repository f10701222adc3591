package dev.idempotency.engine;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import org.springframework.core.ParameterizedTypeReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class DefaultIdempotentExecutorTests {

	private final IdempotencyEngine engine = new IdempotencyEngine(new InMemoryIdempotencyStore(),
			IdempotencyDefaults.STANDARD, List.of());

	private final IdempotentExecutor executor = new DefaultIdempotentExecutor(this.engine, new JacksonResultCodec(),
			new JacksonPayloadFingerprinter());

	private final String name = "op-" + UUID.randomUUID();

	private final AtomicInteger runs = new AtomicInteger();

	@AfterEach
	void close() {
		this.engine.close();
	}

	@Test
	void executesOnceAndReplaysAClassResult() {
		Receipt first = this.executor.execute(this.name, "k", Receipt.class,
				() -> new Receipt(this.runs.incrementAndGet()));
		Receipt second = this.executor.execute(this.name, "k", Receipt.class,
				() -> new Receipt(this.runs.incrementAndGet()));
		assertThat(second).isEqualTo(first).isEqualTo(new Receipt(1));
	}

	@Test
	void replaysGenericResultsAsTheirDeclaredType() {
		ParameterizedTypeReference<Map<String, List<Receipt>>> type = new ParameterizedTypeReference<>() {
		};
		Map<String, List<Receipt>> first = this.executor.execute(this.name, 7, type,
				() -> Map.of("a", List.of(new Receipt(this.runs.incrementAndGet()))));
		Map<String, List<Receipt>> second = this.executor.execute(this.name, 7, type,
				() -> Map.of("a", List.of(new Receipt(this.runs.incrementAndGet()))));
		assertThat(second).isEqualTo(first);
		assertThat(second.get("a").get(0)).isInstanceOf(Receipt.class);
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void runsAnActionOnce() {
		this.executor.run(this.name, "k", this.runs::incrementAndGet);
		this.executor.run(this.name, "k", this.runs::incrementAndGet);
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void payloadMismatchIsKeyReuse() {
		ParameterizedTypeReference<Receipt> type = ParameterizedTypeReference.forType(Receipt.class);
		this.executor.execute(this.name, "k", Map.of("amount", 10), type,
				() -> new Receipt(this.runs.incrementAndGet()));
		assertThatExceptionOfType(IdempotencyKeyReuseException.class).isThrownBy(() -> this.executor.execute(this.name,
				"k", Map.of("amount", 11), type, () -> new Receipt(this.runs.incrementAndGet())));
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void runtimeExceptionsOfTheActionPassThroughUnchanged() {
		IllegalStateException boom = new IllegalStateException("boom");
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.executor.run(this.name, "k", () -> {
				throw boom;
			}))
			.isSameAs(boom);
		this.executor.run(this.name, "k", this.runs::incrementAndGet);
		assertThat(this.runs).hasValue(1);
	}

	@Test
	void blankKeyAndObjectResultTypeAreRejected() {
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.executor.execute(this.name, " ", String.class, () -> "x"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.executor.execute(this.name, "k", Object.class, () -> "x"));
	}

	@Test
	void nameWithTheSeparatorOrWhitespaceFailsBeforeAnythingRuns() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.executor.execute("orders:refund", "42", String.class, () -> "x"))
			.withMessageContaining("'orders:refund' must not contain ':'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.executor.run("orders refund", "42", this.runs::incrementAndGet))
			.withMessageContaining("'orders refund' must not contain whitespace");
		assertThatIllegalArgumentException().isThrownBy(() -> this.executor.run("", "42", this.runs::incrementAndGet));
		assertThat(this.runs).hasValue(0);
	}

	@Test
	void keyWithoutItsOwnToStringFailsNamingItsType() {
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.executor.run(this.name, new Order("o-1"), this.runs::incrementAndGet))
			.withMessageContaining("'" + this.name + "'")
			.withMessageContaining(Order.class.getName() + ", which does not override toString()")
			.withMessageContaining("the method was not called");
		assertThat(this.runs).hasValue(0);
	}

	@Test
	void arrayKeyFailsNamingItsType() {
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.executor.run(this.name, new String[] { "o-1" }, this.runs::incrementAndGet))
			.withMessageContaining("an array (java.lang.String[])");
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.executor.run(this.name, new byte[] { 1 }, this.runs::incrementAndGet))
			.withMessageContaining("an array (byte[])");
		assertThat(this.runs).hasValue(0);
	}

	@Test
	void lambdaKeyFails() {
		Runnable lambda = this.runs::incrementAndGet;
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.executor.run(this.name, lambda, lambda))
			.withMessageContaining("which does not override toString()");
		assertThat(this.runs).hasValue(0);
	}

	@Test
	void collectionsAndMapsAreJudgedByTheirElementsAndOrder() {
		Map<Object, Object> hashMap = new HashMap<>(Map.of("a", 1));
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.executor.run(this.name, List.of("a", new Order("o-1")), this.runs::incrementAndGet))
			.withMessageContaining("holding a " + Order.class.getName() + ", which does not override toString()");
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.executor.run(this.name, List.of(List.of(new int[0])), this.runs::incrementAndGet))
			.withMessageContaining("holding an array (int[])");
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.executor.run(this.name, new TreeMap<>(Map.of("order", new Order("o-1"))),
					this.runs::incrementAndGet))
			.withMessageContaining("java.util.TreeMap holding a " + Order.class.getName());
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.executor.run(this.name, Set.of("a", "b"), this.runs::incrementAndGet))
			.withMessageContaining("a set or map without a defined order");
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.executor.run(this.name, hashMap, this.runs::incrementAndGet))
			.withMessageContaining("java.util.HashMap, a set or map without a defined order");
		assertThat(this.runs).hasValue(0);
	}

	@Test
	void valuesWithStableStringsAreKeys() {
		List<Object> keys = List.of("s", 7, new BigDecimal("1.50"), UUID.fromString(this.name.substring(3)), Level.HIGH,
				new Receipt(1), Optional.of("o"), List.of("a", 1, Level.LOW), new ArrayList<>(List.of("b")),
				new TreeSet<>(Set.of("b", "a")), new LinkedHashSet<>(List.of("c", "d")), EnumSet.of(Level.LOW),
				new LinkedHashMap<>(Map.of("k", List.of(1))), new TreeMap<>(Map.of("k", "v")),
				new EnumMap<>(Map.of(Level.HIGH, "v")));
		for (Object key : keys) {
			this.executor.run(this.name, key, this.runs::incrementAndGet);
			this.executor.run(this.name, key, this.runs::incrementAndGet);
		}
		assertThat(this.runs).hasValue(keys.size());
	}

	@Test
	void listThatHoldsItselfIsAKey() {
		List<Object> list = new ArrayList<>();
		list.add("a");
		list.add(list);
		this.executor.run(this.name, list, this.runs::incrementAndGet);
		this.executor.run(this.name, list, this.runs::incrementAndGet);
		assertThat(this.runs).hasValue(1);
	}

	record Receipt(int run) {
	}

	enum Level {

		LOW, HIGH {
			@Override
			public String toString() {
				return "high";
			}
		}

	}

	static final class Order {

		private final String id;

		Order(String id) {
			this.id = id;
		}

		String id() {
			return this.id;
		}

	}

}
