package dev.idempotency.store.jdbc;

import dev.idempotency.test.jdbc.DatabaseKind;

class MariaDbJdbcCrashRecoveryTests extends JdbcCrashRecoveryTests {

	MariaDbJdbcCrashRecoveryTests() {
		super(DatabaseKind.MARIADB);
	}

}
