package dev.idempotency.store.dynamodb;

import java.util.UUID;

import org.junit.jupiter.api.AfterAll;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.dynamodb.TestDynamoDb;
import dev.idempotency.test.store.IdempotencyStoreContractTests;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The store contract on the DynamoDB store, on a real dynalite. Here rather than in
 * idempotency-dynamodb, as the other stores' contract tests are: idempotency-test depends
 * on idempotency-autoconfigure, which depends on idempotency-dynamodb.
 */
class DynamoDbIdempotencyStoreContractTests extends IdempotencyStoreContractTests {

	private static DynamoDbClient client;

	private static String table;

	@Override
	protected IdempotencyStore createStore() {
		synchronized (DynamoDbIdempotencyStoreContractTests.class) {
			if (client == null) {
				client = TestDynamoDb.get().client();
				table = "idem_test_" + UUID.randomUUID().toString().replace("-", "");
				DynamoDbTable.initialize(client, table);
			}
		}
		return new DynamoDbIdempotencyStore(client, table);
	}

	@AfterAll
	static synchronized void closeClient() {
		if (client != null) {
			client.close();
			client = null;
		}
	}

}
