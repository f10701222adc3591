package dev.idempotency.store.dynamodb;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.idempotency.test.dynamodb.TestDynamoDb;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table check of health, and the store's description, on dynalite.
 */
class DynamoDbTableCheckTests {

	private final DynamoDbClient client = DynamoDbTestTables.client();

	@Test
	void anExistingTableAcceptsTheProbeWriteWhichLeavesNothing() {
		String table = DynamoDbTestTables.newTable();
		DynamoDbTableCheck.Status status = new DynamoDbIdempotencyStore(this.client, table).tableCheck().check();
		assertThat(status.table()).isEqualTo(table);
		assertThat(status.problem()).isNull();
		assertThat(this.client.scan((request) -> request.tableName(table)).count()).isZero();
	}

	@Test
	void aMissingTableIsAProblemThatSaysHowToCreateIt() {
		String table = "idem_test_" + UUID.randomUUID().toString().replace("-", "");
		DynamoDbTableCheck.Status status = new DynamoDbIdempotencyStore(this.client, table).tableCheck().check();
		assertThat(status.problem()).startsWith("table " + table + " does not exist")
			.contains("idempotency.dynamodb.initialize-table=true");
	}

	@Test
	void theDescriptionNamesTableEndpointAndRegion() {
		assertThat(new DynamoDbIdempotencyStore(this.client, "records")).hasToString("DynamoDB store, table records at "
				+ TestDynamoDb.get().endpoint() + " (us-east-1), clock skew allowance 1000 ms");
	}

}
