package dev.idempotency.store.jdbc;

import dev.idempotency.test.jdbc.DatabaseKind;

class PostgresJdbcJoinedTransactionEdgeTests extends JdbcJoinedTransactionEdgeTests {

	PostgresJdbcJoinedTransactionEdgeTests() {
		super(DatabaseKind.POSTGRESQL);
	}

	@Override
	void poisonCompletionsOf(String marker) {
		database().jdbc()
			.execute("CREATE FUNCTION poison_completion() RETURNS trigger AS $$ BEGIN "
					+ "RAISE EXCEPTION 'poisoned completion'; END $$ LANGUAGE plpgsql");
		database().jdbc()
			.execute("CREATE TRIGGER poison BEFORE UPDATE ON " + JdbcIdempotencyStore.DEFAULT_TABLE
					+ " FOR EACH ROW WHEN (NEW.state = 'COMPLETED' AND NEW.record_key LIKE '%" + marker + "%') "
					+ "EXECUTE FUNCTION poison_completion()");
	}

	@Override
	void createSchema(String name) {
		database().jdbc().execute("CREATE SCHEMA " + name);
	}

	@Override
	void dropSchema(String name) {
		database().jdbc().execute("DROP SCHEMA " + name + " CASCADE");
	}

	@Override
	String enterSchema(String name) {
		database().jdbc().execute("SET LOCAL search_path TO " + name);
		return "";
	}

	@Override
	void leaveSchema(String home) {
		// SET LOCAL ends with the transaction
	}

}
