package dev.idempotency.benchmarks;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * The DynamoDB floor: the store's own requests by hand on the same client. A new key is
 * the store's conditional {@code PutItem} of a new attempt (the same item, the same
 * condition), then its conditional {@code UpdateItem} of the completion; a replay is the
 * put that fails its condition, then one consistent {@code GetItem} (dynalite, like some
 * DynamoDB-compatible servers, ignores {@code ReturnValuesOnConditionCheckFailure}), its
 * stored bytes handed back undecoded. The body is encoded once, up front: no JSON, no
 * expression, no lease renewal, no decision on the item beyond its state. The requests
 * are copied from the store's {@code AcquireTransition} and {@code FinishTransitions}.
 */
final class DynamoDbFloor {

	// As long as the engine's owner tokens
	private static final String OWNER = "floor-owner-0001";

	private static final long SKEW = 1000;

	private final DynamoDbClient client;

	private final String table;

	private final String keyPrefix;

	private final long lease;

	private final long retention;

	private final byte[] body;

	DynamoDbFloor(DynamoDbClient client, String table, String keyPrefix, long leaseMillis, long retentionMillis,
			byte[] body) {
		this.client = client;
		this.table = table;
		this.keyPrefix = keyPrefix;
		this.lease = leaseMillis;
		this.retention = retentionMillis;
		this.body = body;
	}

	/**
	 * Run one call: acquire and complete a new key, or replay a completed one.
	 * @param id the idempotency key
	 * @return the stored body
	 */
	byte[] call(String id) {
		String key = this.keyPrefix + id;
		long now = System.currentTimeMillis();
		try {
			this.client.putItem((request) -> request.tableName(this.table)
				.item(newAttempt(key, now))
				.conditionExpression("attribute_not_exists(#id)")
				.expressionAttributeNames(Map.of("#id", "id"))
				.returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
		}
		catch (ConditionalCheckFailedException ex) {
			Map<String, AttributeValue> item = ex.hasItem() ? ex.item()
					: this.client
						.getItem((request) -> request.tableName(this.table)
							.key(Map.of("id", AttributeValue.fromS(key)))
							.consistentRead(true))
						.item();
			return completed(key, item);
		}
		complete(key);
		return this.body;
	}

	private Map<String, AttributeValue> newAttempt(String key, long now) {
		long expires = now + this.lease + this.retention;
		Map<String, AttributeValue> item = new HashMap<>();
		item.put("id", AttributeValue.fromS(key));
		item.put("v", n(1));
		item.put("state", AttributeValue.fromS("IN_PROGRESS"));
		item.put("fence", n(1));
		item.put("owner", AttributeValue.fromS(OWNER));
		item.put("takeover", AttributeValue.fromBool(false));
		item.put("started", n(now));
		item.put("lease", n(now + this.lease));
		item.put("expires", n(expires));
		item.put("ttl", n((expires + SKEW) / 1000 + 1));
		return item;
	}

	private void complete(String key) {
		long now = System.currentTimeMillis();
		long expires = now + this.retention;
		Map<String, AttributeValue> values = new HashMap<>();
		values.put(":completed", AttributeValue.fromS("COMPLETED"));
		values.put(":now", n(now));
		values.put(":expires", n(expires));
		values.put(":ttl", n((expires + SKEW) / 1000 + 1));
		values.put(":result", AttributeValue.fromB(SdkBytes.fromByteArray(this.body)));
		values.put(":inProgress", AttributeValue.fromS("IN_PROGRESS"));
		values.put(":owner", AttributeValue.fromS(OWNER));
		values.put(":fence", n(1));
		values.put(":expiredBefore", n(now - SKEW));
		Map<String, String> names = Map.of("#state", "state", "#completed", "completed", "#expires", "expires", "#ttl",
				"ttl", "#result", "result", "#owner", "owner", "#fence", "fence");
		this.client.updateItem((request) -> request.tableName(this.table)
			.key(Map.of("id", AttributeValue.fromS(key)))
			.updateExpression(
					"SET #state = :completed, #completed = :now, #expires = :expires, #ttl = :ttl, #result = :result")
			.conditionExpression(
					"#state = :inProgress AND #owner = :owner AND #fence = :fence " + "AND #expires > :expiredBefore")
			.expressionAttributeNames(names)
			.expressionAttributeValues(values)
			.returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
	}

	private static byte[] completed(String key, Map<String, AttributeValue> item) {
		AttributeValue state = item.get("state");
		AttributeValue result = item.get("result");
		if (state == null || !"COMPLETED".equals(state.s()) || result == null) {
			throw new IllegalStateException("The floor found " + key + " not completed: " + item);
		}
		return result.b().asByteArray();
	}

	/**
	 * Check that the floor replays the starter's record byte for byte.
	 * @param id a key the starter completed
	 */
	void checkReplays(String id) {
		if (!Arrays.equals(call(id), this.body)) {
			throw new IllegalStateException("The floor does not replay the starter's record of " + id);
		}
	}

	private static AttributeValue n(long value) {
		return AttributeValue.fromN(Long.toString(value));
	}

}
