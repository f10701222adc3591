package dev.idempotency.engine;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.dynamodb.DynamoDbIdempotencyStore;
import dev.idempotency.store.dynamodb.DynamoDbTestTables;

class DynamoDbBatchExecutionTests extends BatchExecutionTests {

	@Override
	protected IdempotencyStore createStore() {
		return new DynamoDbIdempotencyStore(DynamoDbTestTables.client(), DynamoDbTestTables.table());
	}

}
