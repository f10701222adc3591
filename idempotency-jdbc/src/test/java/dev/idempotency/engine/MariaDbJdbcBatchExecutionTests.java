package dev.idempotency.engine;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.jdbc.DatabaseKind;

class MariaDbJdbcBatchExecutionTests extends BatchExecutionTests {

	@Override
	protected IdempotencyStore createStore() {
		return JdbcEngineStores.store(DatabaseKind.MARIADB);
	}

}
