package dev.idempotency.store.jdbc;

import dev.idempotency.test.jdbc.DatabaseKind;

class PostgresJdbcCleanupRaceTests extends JdbcCleanupRaceTests {

	PostgresJdbcCleanupRaceTests() {
		super(DatabaseKind.POSTGRESQL);
	}

	@Override
	String fillerSql(int from) {
		return "INSERT INTO idempotency_record (record_key, state, fence, owner, takeover, started_at, lease_until, "
				+ "completed_at, expires_at, result) SELECT 'filler:' || g, 'COMPLETED', 1, 'old', FALSE, "
				+ "now() - interval '2 hours', now() - interval '2 hours', now() - interval '2 hours', "
				+ "now() - interval '1 hour', '\\x01'::bytea FROM generate_series(" + from + ", " + (from + 499)
				+ ") AS g";
	}

}
