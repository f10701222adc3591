package dev.idempotency.store.dynamodb;

import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How many requests an acquire that finds an item costs: one, where the server returns
 * the item its condition failed on (as DynamoDB does with
 * {@code ReturnValuesOnConditionCheckFailure=ALL_OLD}; dynalite ignores it, so a client
 * stub returns it here), else two, the second a consistent read, repeated when the item
 * vanished in between.
 */
class DynamoDbAcquireRoundTripTests {

	private static final AcquireRequest A = new AcquireRequest("a", java.time.Duration.ofSeconds(30),
			java.time.Duration.ofMinutes(10), null);

	private final RecordingClient client = new RecordingClient(DynamoDbTestTables.client());

	private final DynamoDbIdempotencyStore store = new DynamoDbIdempotencyStore(this.client,
			DynamoDbTestTables.table());

	private final RecordKey key = new RecordKey("round-trip", UUID.randomUUID().toString());

	@BeforeEach
	void acquireAndReset() {
		assertThat(this.store.acquire(this.key, A)).isEqualTo(new Acquired(1, false));
		this.client.resetCounts();
	}

	@Test
	void acquireOfAnItemInProgressCostsOneRequestWhenTheServerReturnsTheOldItem() {
		this.client.onPut(this::putReturningOldItem);
		InProgress inProgress = (InProgress) this.store.acquire(this.key, request("b"));
		assertThat(inProgress.fence()).isEqualTo(1);
		assertThat(this.client.puts).hasValue(1);
		assertThat(this.client.gets).hasValue(0);
	}

	@Test
	void replayCostsOneRequestWhenTheServerReturnsTheOldItem() {
		this.store.complete(this.key, "a", 1, StoredResult.of(new byte[] { 1, 2, 3 }), java.time.Duration.ofMinutes(1));
		this.client.onPut(this::putReturningOldItem);
		this.client.resetCounts();
		Completed completed = (Completed) this.store.acquire(this.key, request("b"));
		assertThat(completed.result().body()).containsExactly(1, 2, 3);
		assertThat(this.client.puts).hasValue(1);
		assertThat(this.client.gets).hasValue(0);
	}

	@Test
	void acquireOfAnItemInProgressReadsItOnceWhenTheServerReturnsNoItem() {
		InProgress inProgress = (InProgress) this.store.acquire(this.key, request("b"));
		assertThat(inProgress.fence()).isEqualTo(1);
		assertThat(this.client.puts).hasValue(1);
		assertThat(this.client.gets).hasValue(1);
	}

	@Test
	void acquireWhoseItemVanishedBeforeItsReadPutsAgain() {
		RecordKey other = new RecordKey("round-trip", UUID.randomUUID().toString());
		// The first put fails on an item that is gone when it is read: the store puts
		// again
		this.client.onPut((request) -> {
			this.client.onPut(this.client.server()::putItem);
			throw ConditionalCheckFailedException.builder().message("The conditional request failed").build();
		});
		this.client.onGet((request) -> {
			this.client.onGet(this.client.server()::getItem);
			return GetItemResponse.builder().build();
		});
		assertThat(this.store.acquire(other, request("b"))).isEqualTo(new Acquired(1, false));
		assertThat(this.client.puts).hasValue(2);
		assertThat(this.client.gets).hasValue(1);
		assertThat(this.store.read(other).orElseThrow().fence()).isEqualTo(1);
	}

	private PutItemResponse putReturningOldItem(PutItemRequest request) {
		assertThat(request.returnValuesOnConditionCheckFailure())
			.isEqualTo(ReturnValuesOnConditionCheckFailure.ALL_OLD);
		try {
			return this.client.server().putItem(request);
		}
		catch (ConditionalCheckFailedException ex) {
			Map<String, AttributeValue> old = this.client.server()
				.getItem((get) -> get.tableName(request.tableName())
					.key(Map.of("id", request.item().get("id")))
					.consistentRead(true))
				.item();
			throw ConditionalCheckFailedException.builder().message(ex.getMessage()).item(old).build();
		}
	}

	private static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, A.lease(), A.retention(), null);
	}

}
