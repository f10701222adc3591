package dev.idempotency.store.jdbc;

import dev.idempotency.test.jdbc.DatabaseKind;

class MariaDbJdbcJoinedTransactionEdgeTests extends JdbcJoinedTransactionEdgeTests {

	MariaDbJdbcJoinedTransactionEdgeTests() {
		super(DatabaseKind.MARIADB);
	}

	@Override
	void poisonCompletionsOf(String marker) {
		database().jdbc()
			.execute("CREATE TRIGGER poison BEFORE UPDATE ON " + JdbcIdempotencyStore.DEFAULT_TABLE
					+ " FOR EACH ROW BEGIN IF NEW.state = 'COMPLETED' AND NEW.record_key LIKE '%" + marker
					+ "%' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'poisoned completion'; END IF; END");
	}

	@Override
	void createSchema(String name) {
		database().jdbc().execute("CREATE DATABASE " + name);
	}

	@Override
	void dropSchema(String name) {
		database().jdbc().execute("DROP DATABASE " + name);
	}

	@Override
	String enterSchema(String name) {
		String home = database().jdbc().queryForObject("SELECT DATABASE()", String.class);
		database().jdbc().execute("USE " + name);
		return home;
	}

	@Override
	void leaveSchema(String home) {
		database().jdbc().execute("USE " + home);
	}

}
