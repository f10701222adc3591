package dev.idempotency.engine;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Names and keys holding an unpaired surrogate, which UTF-8 stores as {@code '?'}: two of
 * them must never share a Redis record.
 */
class UnpairedSurrogateTests {

	private final IdempotencyEngine engine = new IdempotencyEngine(
			new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency-surrogate:"),
			IdempotencyDefaults.STANDARD, List.of());

	private final IdempotentExecutor executor = new DefaultIdempotentExecutor(this.engine, new JacksonResultCodec(),
			new JacksonPayloadFingerprinter());

	private final String base = "orders-" + UUID.randomUUID();

	@AfterEach
	void close() {
		this.engine.close();
	}

	@Test
	void nameWithAnUnpairedSurrogateIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.executor.execute(this.base + "\uD800", "42", String.class, () -> "first"))
			.withMessageContaining("unpaired surrogate");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.executor.execute("\uDBFF" + this.base, "42", String.class, () -> "first"))
			.withMessageContaining("unpaired surrogate");
	}

	@Test
	void keyWithAnUnpairedSurrogateIsRefusedAndMeetsNoOtherKey() {
		AtomicInteger runs = new AtomicInteger();
		assertThatExceptionOfType(IdempotencyKeyException.class)
			.isThrownBy(() -> this.executor.execute(this.base, "evt-\uD800", String.class,
					() -> "first " + runs.incrementAndGet()))
			.withMessageContaining("unpaired surrogate at index 4");
		assertThatExceptionOfType(IdempotencyKeyException.class).isThrownBy(
				() -> this.executor.execute(this.base, "\uDC00evt", String.class, () -> "x " + runs.incrementAndGet()));
		assertThat(runs).hasValue(0);
		assertThat(this.executor.execute(this.base, "evt-?", String.class, () -> "second")).isEqualTo("second");
	}

	@Test
	void pairedSurrogatesAreText() {
		assertThat(this.executor.execute(this.base + "\uD83D\uDE00", "evt-\uD83D\uDE00", String.class, () -> "emoji"))
			.isEqualTo("emoji");
		assertThat(this.executor.execute(this.base + "\uD83D\uDE00", "evt-\uD83D\uDE00", String.class, () -> "again"))
			.isEqualTo("emoji");
	}

}
