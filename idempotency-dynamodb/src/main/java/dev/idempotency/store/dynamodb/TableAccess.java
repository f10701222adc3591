package dev.idempotency.store.dynamodb;

import java.time.Clock;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.RecordKey;
import dev.idempotency.store.dynamodb.StoredItem.NotARecord;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * The store's table, its client, and the caller's clock with its skew allowance: every
 * request of the store goes through here, one conditional write or one consistent read at
 * a time. A write whose condition fails reports the item it failed on: the one the server
 * returned with it ({@code ReturnValuesOnConditionCheckFailure=ALL_OLD}), or where the
 * server returns none, the one a consistent read finds next. Every failure of the client
 * is reported as a store error naming the record and the table.
 */
final class TableAccess {

	private final DynamoDbClient client;

	private final String table;

	private final long skew;

	private final Clock clock;

	TableAccess(DynamoDbClient client, String table, long skew, Clock clock) {
		this.client = client;
		this.table = table;
		this.skew = skew;
		this.clock = clock;
	}

	String table() {
		return this.table;
	}

	DynamoDbClient client() {
		return this.client;
	}

	long skew() {
		return this.skew;
	}

	long now() {
		return this.clock.millis();
	}

	/**
	 * Return when DynamoDB may delete an item that expires at {@code expires}: in epoch
	 * seconds, past the skew allowance, so that no caller still finds it live.
	 */
	AttributeValue ttl(long expires) {
		return Attributes.n((expires + this.skew) / 1000 + 1);
	}

	String id(RecordKey key) {
		return DynamoDbFailures.id(key, this.table);
	}

	/**
	 * Put a whole item, if the condition holds.
	 */
	Written put(RecordKey key, String operation, Map<String, AttributeValue> item, Condition condition,
			boolean readOnConflict) {
		try {
			this.client.putItem((request) -> request.tableName(this.table)
				.item(item)
				.conditionExpression(condition.condition())
				.expressionAttributeNames(condition.names())
				.expressionAttributeValues(condition.values().isEmpty() ? null : condition.values())
				.returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
			return Written.WRITTEN;
		}
		catch (ConditionalCheckFailedException ex) {
			return conflict(key, operation, item.get(Attributes.ID).s(), ex, readOnConflict);
		}
		catch (SdkException ex) {
			throw DynamoDbFailures.failed(operation, key, this.table, ex);
		}
	}

	/**
	 * Update an item, if the condition holds.
	 */
	Written update(RecordKey key, String operation, String id, Condition condition, boolean readOnConflict) {
		try {
			this.client.updateItem((request) -> request.tableName(this.table)
				.key(Attributes.key(id))
				.updateExpression(condition.update())
				.conditionExpression(condition.condition())
				.expressionAttributeNames(condition.names())
				.expressionAttributeValues(condition.values())
				.returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
			return Written.WRITTEN;
		}
		catch (ConditionalCheckFailedException ex) {
			return conflict(key, operation, id, ex, readOnConflict);
		}
		catch (SdkException ex) {
			throw DynamoDbFailures.failed(operation, key, this.table, ex);
		}
	}

	/**
	 * Read an item with a consistent read.
	 * @return the item, or {@code null} when there is none
	 */
	@Nullable Map<String, AttributeValue> get(RecordKey key, String operation, String id) {
		try {
			GetItemResponse response = this.client
				.getItem((request) -> request.tableName(this.table).key(Attributes.key(id)).consistentRead(true));
			return response.hasItem() && !response.item().isEmpty() ? response.item() : null;
		}
		catch (SdkException ex) {
			throw DynamoDbFailures.failed(operation, key, this.table, ex);
		}
	}

	/**
	 * Delete an item, whatever it holds.
	 * @return the item deleted, or {@code null} when there was none
	 */
	@Nullable Map<String, AttributeValue> delete(RecordKey key, String id) {
		try {
			Map<String, AttributeValue> old = this.client
				.deleteItem((request) -> request.tableName(this.table)
					.key(Attributes.key(id))
					.returnValues(ReturnValue.ALL_OLD))
				.attributes();
			return (old != null && !old.isEmpty()) ? old : null;
		}
		catch (SdkException ex) {
			throw DynamoDbFailures.failed("evict", key, this.table, ex);
		}
	}

	/**
	 * Read an item as a record this store wrote.
	 * @throws dev.idempotency.IdempotencyStoreException when it is not one
	 */
	StoredItem record(RecordKey key, Map<String, AttributeValue> item) {
		try {
			return StoredItem.of(item);
		}
		catch (NotARecord ex) {
			throw DynamoDbFailures.corrupt(key, this.table, ex);
		}
	}

	private Written conflict(RecordKey key, String operation, String id, ConditionalCheckFailedException ex,
			boolean read) {
		if (ex.hasItem() && !ex.item().isEmpty()) {
			return new Written(false, ex.item());
		}
		return new Written(false, read ? get(key, operation, id) : null);
	}

	/**
	 * What a conditional write did.
	 *
	 * @param written whether the condition held and the item was written
	 * @param found when it did not, the item the condition failed on, or {@code null}
	 * when there is none (or it was not read)
	 */
	record Written(boolean written, @Nullable Map<String, AttributeValue> found) {

		static final Written WRITTEN = new Written(true, null);

	}

}
