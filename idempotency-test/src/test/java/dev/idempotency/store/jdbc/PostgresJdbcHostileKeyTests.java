package dev.idempotency.store.jdbc;

import dev.idempotency.test.jdbc.DatabaseKind;

class PostgresJdbcHostileKeyTests extends JdbcHostileKeyTests {

	PostgresJdbcHostileKeyTests() {
		super(DatabaseKind.POSTGRESQL);
	}

}
