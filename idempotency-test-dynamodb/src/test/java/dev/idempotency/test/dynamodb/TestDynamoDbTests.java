package dev.idempotency.test.dynamodb;

import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared server takes a table at once and keeps what is written to it.
 */
class TestDynamoDbTests {

	@Test
	void tableIsActiveAtOnceAndKeepsAnItem() {
		DynamoDbServer server = TestDynamoDb.get();
		assertThat(server).isSameAs(TestDynamoDb.get());
		assertThat(server.endpoint().getScheme()).isEqualTo("http");
		try (DynamoDbClient client = server.client()) {
			String table = Tables.create(client);
			assertThat(client.describeTable((request) -> request.tableName(table)).table().tableStatus())
				.isEqualTo(TableStatus.ACTIVE);
			Tables.put(client, table, "k1", "v1");
			try (DynamoDbClient other = server.client()) {
				assertThat(Tables.get(other, table, "k1")).isEqualTo("v1");
			}
			assertThat(client.listTables().tableNames()).contains(table);
		}
	}

}
