package dev.idempotency.store.jdbc;

import dev.idempotency.test.jdbc.DatabaseKind;

class MariaDbJdbcHostileKeyTests extends JdbcHostileKeyTests {

	MariaDbJdbcHostileKeyTests() {
		super(DatabaseKind.MARIADB);
	}

}
