package dev.idempotency.engine;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.jdbc.DatabaseKind;

class MariaDbJdbcIdempotencyEngineTests extends IdempotencyEngineTests {

	@Override
	protected IdempotencyStore createStore() {
		return JdbcEngineStores.store(DatabaseKind.MARIADB);
	}

}
