package dev.idempotency.store.jdbc;

import dev.idempotency.test.jdbc.DatabaseKind;

class PostgresJdbcCrashRecoveryTests extends JdbcCrashRecoveryTests {

	PostgresJdbcCrashRecoveryTests() {
		super(DatabaseKind.POSTGRESQL);
	}

}
