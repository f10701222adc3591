package dev.idempotency.store.jdbc;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.jdbc.DatabaseKind;
import dev.idempotency.test.store.IdempotencyStoreContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

class MariaDbJdbcIdempotencyStoreContractTests extends IdempotencyStoreContractTests {

	private static StoreDatabase database;

	@BeforeAll
	static void createDatabase() {
		database = StoreDatabase.create(DatabaseKind.MARIADB, 8);
	}

	@AfterAll
	static void closeDatabase() {
		database.close();
	}

	@Override
	protected IdempotencyStore createStore() {
		return new JdbcIdempotencyStore(database.dataSource());
	}

}
