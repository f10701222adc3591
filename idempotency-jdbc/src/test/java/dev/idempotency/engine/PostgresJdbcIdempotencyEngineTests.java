package dev.idempotency.engine;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.jdbc.DatabaseKind;

class PostgresJdbcIdempotencyEngineTests extends IdempotencyEngineTests {

	@Override
	protected IdempotencyStore createStore() {
		return JdbcEngineStores.store(DatabaseKind.POSTGRESQL);
	}

}
