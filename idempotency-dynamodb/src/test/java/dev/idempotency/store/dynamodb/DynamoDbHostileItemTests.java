package dev.idempotency.store.dynamodb;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.RecordKey;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Items written by someone else that look almost like records: the store reports them and
 * never writes over them, nor hands out a fence that did not rise.
 */
class DynamoDbHostileItemTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	private final DynamoDbClient client = DynamoDbTestTables.client();

	private final String table = DynamoDbTestTables.table();

	private final DynamoDbIdempotencyStore store = new DynamoDbIdempotencyStore(this.client, this.table);

	// A caller a minute later: every lease of this test has ended for it, no record has
	// expired
	private final DynamoDbIdempotencyStore later = new DynamoDbIdempotencyStore(this.client, this.table, Duration.ZERO,
			Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1)));

	@Test
	void attemptAtTheLargestFenceIsNeverTakenOverWithAFenceThatWrapsAround() {
		RecordKey key = new RecordKey("hostile", UUID.randomUUID().toString());
		this.store.acquire(key, new AcquireRequest("a", LEASE, RETENTION, null));
		setFence(key, Long.MAX_VALUE);
		Map<String, AttributeValue> before = stored(key);
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.later.acquire(key, new AcquireRequest("b", LEASE, RETENTION, null)))
			.withMessageContaining("'" + key + "'")
			.withMessageContaining("fence is " + Long.MAX_VALUE);
		assertThat(stored(key)).isEqualTo(before);
	}

	@Test
	void releasedAttemptAtTheLargestFenceIsNeverFollowedByAFenceThatWrapsAround() {
		RecordKey key = new RecordKey("hostile", UUID.randomUUID().toString());
		this.store.acquire(key, new AcquireRequest("a", LEASE, RETENTION, null));
		this.store.release(key, "a", 1, RETENTION);
		setFence(key, Long.MAX_VALUE);
		Map<String, AttributeValue> before = stored(key);
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.acquire(key, new AcquireRequest("b", LEASE, RETENTION, null)))
			.withMessageContaining("fence is " + Long.MAX_VALUE);
		assertThat(stored(key)).isEqualTo(before);
	}

	@Test
	void numberTooLargeForALongIsReportedAsSuchAndLeftAlone() {
		RecordKey key = new RecordKey("hostile", UUID.randomUUID().toString());
		this.store.acquire(key, new AcquireRequest("a", LEASE, RETENTION, null));
		String huge = "9".repeat(38);
		this.client.updateItem((update) -> update.tableName(this.table)
			.key(Map.of("id", AttributeValue.fromS(key.toString())))
			.updateExpression("SET #l = :l")
			.expressionAttributeNames(Map.of("#l", "lease"))
			.expressionAttributeValues(Map.of(":l", AttributeValue.fromN(huge))));
		Map<String, AttributeValue> before = stored(key);
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.acquire(key, new AcquireRequest("b", LEASE, RETENTION, null)))
			.withMessageContaining("'lease' is " + huge)
			.withMessageNotContaining("not a whole number")
			.withMessageContaining("64-bit");
		assertThat(stored(key)).isEqualTo(before);
	}

	private void setFence(RecordKey key, long fence) {
		this.client.updateItem((update) -> update.tableName(this.table)
			.key(Map.of("id", AttributeValue.fromS(key.toString())))
			.updateExpression("SET #f = :f")
			.expressionAttributeNames(Map.of("#f", "fence"))
			.expressionAttributeValues(Map.of(":f", AttributeValue.fromN(Long.toString(fence)))));
	}

	private Map<String, AttributeValue> stored(RecordKey key) {
		return this.client
			.getItem((get) -> get.tableName(this.table)
				.key(Map.of("id", AttributeValue.fromS(key.toString())))
				.consistentRead(true))
			.item();
	}

}
