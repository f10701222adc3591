package dev.idempotency.store.dynamodb;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A table keyed by {@code id} of another type than string: every record's key is a
 * string, so the initializer refuses it at startup rather than let every call fail.
 */
class DynamoDbTableKeyTypeTests {

	private final DynamoDbClient client = DynamoDbTestTables.client();

	@Test
	void tableKeyedByANumberIdIsRefused() {
		String table = "idem_test_" + UUID.randomUUID().toString().replace("-", "");
		this.client.createTable((request) -> request.tableName(table)
			.billingMode(BillingMode.PAY_PER_REQUEST)
			.attributeDefinitions(
					AttributeDefinition.builder().attributeName("id").attributeType(ScalarAttributeType.N).build())
			.keySchema(KeySchemaElement.builder().attributeName("id").keyType(KeyType.HASH).build()));
		assertThatIllegalStateException().isThrownBy(() -> DynamoDbTable.initialize(this.client, table))
			.withMessageContaining(table)
			.withMessageContaining("a string");
	}

}
