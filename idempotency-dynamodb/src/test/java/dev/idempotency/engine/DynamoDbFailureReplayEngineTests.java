package dev.idempotency.engine;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.dynamodb.DynamoDbIdempotencyStore;
import dev.idempotency.store.dynamodb.DynamoDbTestTables;

class DynamoDbFailureReplayEngineTests extends FailureReplayEngineTests {

	@Override
	protected IdempotencyStore createStore() {
		return new DynamoDbIdempotencyStore(DynamoDbTestTables.client(), DynamoDbTestTables.table());
	}

}
