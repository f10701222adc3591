package dev.idempotency.store.dynamodb;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Keys holding a surrogate that is not half of a pair are not Unicode text: sent to
 * DynamoDB, each such surrogate becomes U+FFFD, so that such keys would share a record
 * with each other and with a key holding U+FFFD itself. The engine refuses them; the
 * store, used on its own, refuses them too rather than replay another key's result.
 */
class DynamoDbUnpairedSurrogateKeyTests {

	private static final AcquireRequest A = new AcquireRequest("a", Duration.ofSeconds(30), Duration.ofMinutes(10),
			null);

	private static final AcquireRequest B = new AcquireRequest("b", Duration.ofSeconds(30), Duration.ofMinutes(10),
			null);

	private final DynamoDbIdempotencyStore store = new DynamoDbIdempotencyStore(DynamoDbTestTables.client(),
			DynamoDbTestTables.table());

	private final String base = UUID.randomUUID().toString();

	@Test
	void keyWithAnUnpairedSurrogateNeverMeetsTheRecordOfAnotherKey() {
		RecordKey replacement = new RecordKey("surrogate", this.base + "\uFFFD");
		assertThat(this.store.acquire(replacement, A)).isEqualTo(new Acquired(1, false));
		this.store.complete(replacement, "a", 1, StoredResult.of(new byte[] { 42 }), Duration.ofMinutes(10));
		for (String tail : new String[] { "\uD800", "\uDBFF", "\uDC00", "x\uD83D" }) {
			RecordKey unpaired = new RecordKey("surrogate", this.base + tail);
			assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> this.store.acquire(unpaired, B))
				.withMessageContaining("unpaired surrogate");
		}
	}

	@Test
	void keyWithAPairedSurrogateIsStored() {
		RecordKey paired = new RecordKey("surrogate", this.base + "\uD83D\uDE00");
		assertThat(this.store.acquire(paired, A)).isEqualTo(new Acquired(1, false));
		assertThat(this.store.read(paired)).isPresent();
	}

}
