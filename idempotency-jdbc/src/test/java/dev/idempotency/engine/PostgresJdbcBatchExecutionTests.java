package dev.idempotency.engine;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.jdbc.DatabaseKind;

class PostgresJdbcBatchExecutionTests extends BatchExecutionTests {

	@Override
	protected IdempotencyStore createStore() {
		return JdbcEngineStores.store(DatabaseKind.POSTGRESQL);
	}

}
