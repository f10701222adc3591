package dev.idempotency.store.jdbc;

import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;
import dev.idempotency.test.jdbc.DatabaseKind;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresJdbcIdempotencyStoreTests extends JdbcIdempotencyStoreTests {

	@BeforeAll
	static void createDatabase() {
		createDatabase(StoreDatabase.create(DatabaseKind.POSTGRESQL, 8));
	}

	// A clock_timestamp() of another schema, searched before pg_catalog, stands for the
	// database's clock
	@Override
	void skewClock(HikariConfig dataSource, Duration shift) {
		String schema = "skew_" + ((shift.isNegative()) ? "behind" : "ahead");
		database().jdbc().execute("CREATE SCHEMA IF NOT EXISTS " + schema);
		database().jdbc()
			.execute("CREATE OR REPLACE FUNCTION " + schema + ".clock_timestamp() RETURNS timestamptz AS "
					+ "'SELECT pg_catalog.clock_timestamp() + INTERVAL ''" + shift.toSeconds() + " seconds''' "
					+ "LANGUAGE SQL");
		dataSource.setConnectionInitSql("SET search_path = " + schema + ", pg_catalog, public");
	}

	// Byte order, whatever the database's default collation: the primary key's index
	// never depends on the operating system's locale data
	@Test
	void keysAreComparedByteForByte() {
		assertThat(database().jdbc()
			.queryForObject("SELECT collation_name FROM information_schema.columns WHERE table_name = "
					+ "'idempotency_record' AND column_name = 'record_key'", String.class))
			.isEqualTo("C");
	}

	@Override
	String lockWaitsQuery() {
		return "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";
	}

	@Override
	void insertRow(String storedKey, String state, long fence) {
		database().jdbc()
			.update("INSERT INTO idempotency_record (record_key, state, fence, owner, takeover, started_at, "
					+ "lease_until, expires_at) VALUES (?, ?, ?, 'someone', FALSE, now(), now() + INTERVAL '1 hour', "
					+ "now() + INTERVAL '1 hour')", storedKey, state, fence);
	}

	@Override
	String createSchemaStatement(String schema) {
		return "CREATE SCHEMA " + schema;
	}

}
