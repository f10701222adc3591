package dev.idempotency.engine;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.jdbc.DatabaseKind;

class MariaDbJdbcFailureReplayEngineTests extends FailureReplayEngineTests {

	@Override
	protected IdempotencyStore createStore() {
		return JdbcEngineStores.store(DatabaseKind.MARIADB);
	}

}
