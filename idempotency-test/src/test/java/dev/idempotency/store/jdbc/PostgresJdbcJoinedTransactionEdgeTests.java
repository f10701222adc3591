package dev.idempotency.store.jdbc;

import dev.idempotency.test.jdbc.DatabaseKind;

class PostgresJdbcJoinedTransactionEdgeTests extends JdbcJoinedTransactionEdgeTests {

	PostgresJdbcJoinedTransactionEdgeTests() {
		super(DatabaseKind.POSTGRESQL);
	}

}
