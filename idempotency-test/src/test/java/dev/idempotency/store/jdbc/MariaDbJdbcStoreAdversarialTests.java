package dev.idempotency.store.jdbc;

import dev.idempotency.test.jdbc.DatabaseKind;
import org.junit.jupiter.api.BeforeAll;

class MariaDbJdbcStoreAdversarialTests extends JdbcStoreAdversarialTests {

	@BeforeAll
	static void createDatabase() {
		createDatabase(StoreDatabase.create(DatabaseKind.MARIADB, 4));
	}

}
