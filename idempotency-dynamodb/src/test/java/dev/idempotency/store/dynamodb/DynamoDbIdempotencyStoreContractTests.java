package dev.idempotency.store.dynamodb;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.store.IdempotencyStoreContractTests;

class DynamoDbIdempotencyStoreContractTests extends IdempotencyStoreContractTests {

	@Override
	protected IdempotencyStore createStore() {
		return new DynamoDbIdempotencyStore(DynamoDbTestTables.client(), DynamoDbTestTables.table());
	}

}
