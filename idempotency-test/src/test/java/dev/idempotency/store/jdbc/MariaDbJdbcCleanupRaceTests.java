package dev.idempotency.store.jdbc;

import dev.idempotency.test.jdbc.DatabaseKind;

class MariaDbJdbcCleanupRaceTests extends JdbcCleanupRaceTests {

	MariaDbJdbcCleanupRaceTests() {
		super(DatabaseKind.MARIADB);
	}

	@Override
	String fillerSql(int from) {
		return "INSERT INTO idempotency_record (record_key, state, fence, owner, takeover, started_at, lease_until, "
				+ "completed_at, expires_at, result) SELECT CONCAT('filler:', seq), 'COMPLETED', 1, 'old', FALSE, "
				+ "UTC_TIMESTAMP(6) - INTERVAL 2 HOUR, UTC_TIMESTAMP(6) - INTERVAL 2 HOUR, "
				+ "UTC_TIMESTAMP(6) - INTERVAL 2 HOUR, UTC_TIMESTAMP(6) - INTERVAL 1 HOUR, x'01' FROM seq_" + from
				+ "_to_" + (from + 499);
	}

}
