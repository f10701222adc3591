package dev.idempotency.engine;

import java.util.AbstractMap;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Key values whose string is made of their parts' strings (records, {@code Optional}, map
 * entries) are only as stable as their parts.
 */
class KeyPartsTests {

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
	void recordWithAnArrayComponentIsRefusedAsAKey() {
		// record toString prints the array as [B@1b6d3586: a new key on every call
		assertUnstable(new BytesKey(new byte[] { 1, 2 }), new BytesKey(new byte[] { 1, 2 }));
	}

	@Test
	void recordHoldingAnIdentityObjectIsRefusedAsAKey() {
		assertUnstable(new HolderKey(new Identity("a")), new HolderKey(new Identity("a")));
	}

	@Test
	void optionalHoldingAnIdentityObjectIsRefusedAsAKey() {
		assertUnstable(Optional.of(new Identity("a")), Optional.of(new Identity("a")));
	}

	@Test
	void mapEntryHoldingAnArrayIsRefusedAsAKey() {
		assertUnstable(new AbstractMap.SimpleImmutableEntry<>("id", new long[] { 42 }),
				new AbstractMap.SimpleImmutableEntry<>("id", new long[] { 42 }));
	}

	@Test
	void recordOfStableComponentsIsAKey() {
		this.executor.run(this.name, new HolderKey2("a", 1), this.runs::incrementAndGet);
		this.executor.run(this.name, new HolderKey2("a", 1), this.runs::incrementAndGet);
		this.executor.run(this.name, Optional.of("a"), this.runs::incrementAndGet);
		this.executor.run(this.name, Optional.of("a"), this.runs::incrementAndGet);
		assertThat(this.runs).hasValue(2);
	}

	private void assertUnstable(Object first, Object second) {
		// Both values are the same key to the application; without a refusal the
		// method runs once per call
		assertThatExceptionOfType(IdempotencyKeyException.class).isThrownBy(() -> {
			this.executor.run(this.name, first, this.runs::incrementAndGet);
			this.executor.run(this.name, second, this.runs::incrementAndGet);
		});
		assertThat(this.runs).hasValue(0);
	}

	record BytesKey(byte[] id) {
	}

	record HolderKey(Identity identity) {
	}

	record HolderKey2(String tenant, int id) {
	}

	static final class Identity {

		private final String id;

		Identity(String id) {
			this.id = id;
		}

		String id() {
			return this.id;
		}

	}

}
