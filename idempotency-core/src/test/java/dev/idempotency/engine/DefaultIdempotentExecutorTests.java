package dev.idempotency.engine;

import java.util.List;
import java.util.Map;
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

	record Receipt(int run) {
	}

}
