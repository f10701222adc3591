package dev.idempotency.store.jdbc;

import dev.idempotency.test.jdbc.DatabaseKind;

/**
 * The store under the caller's transactions on PostgreSQL, where any failed statement
 * aborts the whole transaction.
 */
class PostgresJdbcTransactionTests extends JdbcTransactionTests {

	PostgresJdbcTransactionTests() {
		super(DatabaseKind.POSTGRESQL);
	}

	// Its snapshot would hide a record acquired after it: completed after the commit
	@Override
	boolean joinsRepeatableRead() {
		return false;
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

}
