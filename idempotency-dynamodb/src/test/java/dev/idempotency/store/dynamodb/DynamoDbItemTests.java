package dev.idempotency.store.dynamodb;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the store makes of items: results up to DynamoDB's item limit and past it, items
 * it cannot have written, keys too long for a partition key.
 */
class DynamoDbItemTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	private final DynamoDbClient client = DynamoDbTestTables.client();

	private final String table = DynamoDbTestTables.table();

	private final DynamoDbIdempotencyStore store = new DynamoDbIdempotencyStore(this.client, this.table);

	private final RecordKey key = new RecordKey("items", UUID.randomUUID().toString());

	@Test
	void resultThatFitsTheItemIsReplayedWithItsBytes() {
		byte[] body = new byte[380 * 1024];
		body[body.length - 1] = 7;
		this.store.acquire(this.key, request("a"));
		assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(body), RETENTION)).isTrue();
		Completed completed = (Completed) this.store.acquire(this.key, request("b"));
		assertThat(completed.result().body()).isEqualTo(body);
	}

	@Test
	void resultOverTheItemLimitCompletesAsNotReplayableWithTheReason() {
		this.store.acquire(this.key, request("a"));
		assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(new byte[500 * 1024]), RETENTION)).isTrue();
		Completed completed = (Completed) this.store.acquire(this.key, request("b"));
		assertThat(completed.result().isReplayable()).isFalse();
		assertThat(completed.result().unreplayableReason()).contains("512000 bytes").contains("400 KB");
		assertThat(this.store.read(this.key).orElseThrow().resultStored()).isFalse();
	}

	@Test
	void resultTheServerFindsOverTheItemLimitCompletesAsNotReplayable() {
		// A fingerprint far larger than a SHA-256 takes the item past the limit although
		// the body alone passes the store's estimate: the server refuses, and the store
		// completes again without the body
		this.store.acquire(this.key, new AcquireRequest("a", LEASE, RETENTION, new byte[8 * 1024]));
		int body = ResultFit.MAX_ITEM_BYTES - 1024 - this.key.toString().length() - 1 - 16;
		assertThat(this.store.complete(this.key, "a", 1, StoredResult.of(new byte[body]), RETENTION)).isTrue();
		Completed completed = (Completed) this.store.acquire(this.key, request("b"));
		assertThat(completed.result().unreplayableReason()).contains(body + " bytes");
	}

	@Test
	void failureMessageOverTheItemLimitIsCutShort() {
		this.store.acquire(this.key, request("a"));
		String message = "x".repeat(500 * 1024);
		assertThat(
				this.store.complete(this.key, "a", 1, StoredResult.failure("com.example.Declined", message), RETENTION))
			.isTrue();
		StoredResult replayed = ((Completed) this.store.acquire(this.key, request("b"))).result();
		assertThat(replayed.failureType()).isEqualTo("com.example.Declined");
		assertThat(message).startsWith(replayed.failureMessage());
	}

	@Test
	void foreignItemIsReportedPreciselyAndLeftAlone() {
		Map<String, AttributeValue> foreign = Map.of("id", AttributeValue.fromS(this.key.toString()), "data",
				AttributeValue.fromS("not ours"));
		this.client.putItem((put) -> put.tableName(this.table).item(foreign));
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.acquire(this.key, request("a")))
			.withMessageContaining("'" + this.key + "'")
			.withMessageContaining(this.table)
			.withMessageContaining("no number attribute 'v'");
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.complete(this.key, "a", 1, StoredResult.of(new byte[0]), RETENTION));
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.release(this.key, "a", 1, RETENTION));
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.renew(this.key, "a", 1, LEASE, RETENTION));
		assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(() -> this.store.read(this.key));
		assertThat(stored()).isEqualTo(foreign);
		assertThat(this.store.evict(this.key)).isTrue();
		assertThat(this.store.acquire(this.key, request("a"))).isEqualTo(new Acquired(1, false));
	}

	@Test
	void recordWithAnUnknownStateIsReportedAndLeftAlone() {
		this.store.acquire(this.key, request("a"));
		this.client.updateItem((update) -> update.tableName(this.table)
			.key(Map.of("id", AttributeValue.fromS(this.key.toString())))
			.updateExpression("SET #s = :s")
			.expressionAttributeNames(Map.of("#s", "state"))
			.expressionAttributeValues(Map.of(":s", AttributeValue.fromS("DONE"))));
		Map<String, AttributeValue> before = stored();
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.acquire(this.key, request("b")))
			.withMessageContaining("its state is 'DONE'")
			.withMessageContaining("left as it is");
		assertThat(stored()).isEqualTo(before);
	}

	@Test
	void completedRecordWithoutAnOutcomeIsReported() {
		this.store.acquire(this.key, request("a"));
		this.store.complete(this.key, "a", 1, StoredResult.of(new byte[] { 1 }), RETENTION);
		Map<String, AttributeValue> item = new HashMap<>(stored());
		item.remove("result");
		this.client.putItem((put) -> put.tableName(this.table).item(item));
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.acquire(this.key, request("b")))
			.withMessageContaining("COMPLETED with 0 of a result");
	}

	@Test
	void keyTooLongForAPartitionKeyIsAStoreError() {
		RecordKey tooLong = new RecordKey("items", "k".repeat(2100));
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.acquire(tooLong, request("a")))
			.withMessageContaining("2048");
	}

	@Test
	void typeIsDynamoDb() {
		assertThat(this.store.type()).isEqualTo("dynamodb");
	}

	private Map<String, AttributeValue> stored() {
		return this.client
			.getItem((get) -> get.tableName(this.table)
				.key(Map.of("id", AttributeValue.fromS(this.key.toString())))
				.consistentRead(true))
			.item();
	}

	private static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, LEASE, RETENTION, null);
	}

}
