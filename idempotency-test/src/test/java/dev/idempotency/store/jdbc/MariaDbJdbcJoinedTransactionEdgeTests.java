package dev.idempotency.store.jdbc;

import dev.idempotency.test.jdbc.DatabaseKind;

class MariaDbJdbcJoinedTransactionEdgeTests extends JdbcJoinedTransactionEdgeTests {

	MariaDbJdbcJoinedTransactionEdgeTests() {
		super(DatabaseKind.MARIADB);
	}

}
