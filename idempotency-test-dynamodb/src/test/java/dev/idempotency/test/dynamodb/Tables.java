package dev.idempotency.test.dynamodb;

import java.util.Map;
import java.util.UUID;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * A table of one string key {@code id} and items of one string attribute {@code value},
 * for the tests of the servers.
 */
final class Tables {

	private Tables() {
	}

	static String create(DynamoDbClient client) {
		String table = "idem_test_" + UUID.randomUUID().toString().replace("-", "");
		client.createTable((request) -> request.tableName(table)
			.billingMode(BillingMode.PAY_PER_REQUEST)
			.keySchema((key) -> key.attributeName("id").keyType(KeyType.HASH))
			.attributeDefinitions((attribute) -> attribute.attributeName("id").attributeType(ScalarAttributeType.S)));
		return table;
	}

	static void put(DynamoDbClient client, String table, String id, String value) {
		client.putItem((request) -> request.tableName(table)
			.item(Map.of("id", AttributeValue.fromS(id), "value", AttributeValue.fromS(value))));
	}

	static String get(DynamoDbClient client, String table, String id) {
		Map<String, AttributeValue> item = client.getItem(
				(request) -> request.tableName(table).key(Map.of("id", AttributeValue.fromS(id))).consistentRead(true))
			.item();
		return (item == null || item.isEmpty()) ? "(none)" : item.get("value").s();
	}

}
