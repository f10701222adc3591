package dev.idempotency.store.dynamodb;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RenewalResult;
import dev.idempotency.store.StoredResult;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An attempt taken over, whose owner comes back: its completion, release, renewal and
 * abandon all fail and leave the new attempt's item as it is, whether the server returns
 * the item a condition failed on (as DynamoDB does; a client stub here, since dynalite
 * does not) or the store has to read it.
 */
class DynamoDbZombieTransitionTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void ownerTakenOverChangesNothing(boolean serverReturnsOldItem) {
		RecordingClient client = serverReturnsOldItem ? returningOldItems(DynamoDbTestTables.client())
				: new RecordingClient(DynamoDbTestTables.client());
		String table = DynamoDbTestTables.table();
		RecordKey key = new RecordKey("zombie", UUID.randomUUID().toString());
		DynamoDbIdempotencyStore zombie = new DynamoDbIdempotencyStore(client, table);
		// A minute later, with no allowance: the zombie's lease has ended for it
		DynamoDbIdempotencyStore later = new DynamoDbIdempotencyStore(client, table, Duration.ZERO,
				Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1)));
		assertThat(zombie.acquire(key, new AcquireRequest("a", LEASE, RETENTION, null)))
			.isEqualTo(new Acquired(1, false));
		assertThat(later.acquire(key, new AcquireRequest("b", LEASE, RETENTION, null)))
			.isEqualTo(new Acquired(2, true));
		Map<String, AttributeValue> taken = stored(table, key);
		client.gets.set(0);
		assertThat(zombie.complete(key, "a", 1, StoredResult.of(new byte[] { 1 }), RETENTION)).isFalse();
		assertThat(zombie.release(key, "a", 1, RETENTION)).isFalse();
		assertThat(zombie.renewLease(key, "a", 1, LEASE, RETENTION).toCompletableFuture().join())
			.isEqualTo(RenewalResult.LOST);
		assertThat(zombie.abandon(key, "a", RETENTION).toCompletableFuture().join()).isFalse();
		// The taker's fence does not open the record to the zombie's owner token either
		assertThat(zombie.complete(key, "a", 2, StoredResult.of(new byte[] { 1 }), RETENTION)).isFalse();
		assertThat(stored(table, key)).isEqualTo(taken);
		assertThat(client.gets).hasValue(serverReturnsOldItem ? 0 : 4);
		assertThat(later.complete(key, "b", 2, StoredResult.of(new byte[] { 2 }), RETENTION)).isTrue();
	}

	private static Map<String, AttributeValue> stored(String table, RecordKey key) {
		return DynamoDbTestTables.client()
			.getItem((get) -> get.tableName(table)
				.key(Map.of("id", AttributeValue.fromS(key.toString())))
				.consistentRead(true))
			.item();
	}

	// Answers a failed condition of an update with the item it failed on, as DynamoDB
	// does
	private static RecordingClient returningOldItems(DynamoDbClient server) {
		RecordingClient client = new RecordingClient(server);
		client.onUpdate((request) -> {
			try {
				return server.updateItem(request);
			}
			catch (ConditionalCheckFailedException ex) {
				Map<String, AttributeValue> old = server
					.getItem((get) -> get.tableName(request.tableName()).key(request.key()).consistentRead(true))
					.item();
				throw ConditionalCheckFailedException.builder().message(ex.getMessage()).item(old).build();
			}
		});
		return client;
	}

}
