package dev.idempotency.store.jdbc;

import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;
import dev.idempotency.test.jdbc.DatabaseKind;
import org.junit.jupiter.api.BeforeAll;

class MariaDbJdbcIdempotencyStoreTests extends JdbcIdempotencyStoreTests {

	@BeforeAll
	static void createDatabase() {
		createDatabase(StoreDatabase.create(DatabaseKind.MARIADB, 8));
	}

	// The session's timestamp stands for the database's clock (and stops it, which one
	// acquire does not notice)
	@Override
	void skewClock(HikariConfig dataSource, Duration shift) {
		dataSource.setConnectionInitSql("SET timestamp = UNIX_TIMESTAMP(NOW(6)) + " + shift.toSeconds());
	}

	@Override
	String lockWaitsQuery() {
		return "SELECT count(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'";
	}

	@Override
	void insertRow(String storedKey, String state, long fence) {
		database().jdbc()
			.update("INSERT INTO idempotency_record (record_key, state, fence, owner, takeover, started_at, "
					+ "lease_until, expires_at) VALUES (?, ?, ?, 'someone', FALSE, UTC_TIMESTAMP(6), "
					+ "UTC_TIMESTAMP(6) + INTERVAL 1 HOUR, UTC_TIMESTAMP(6) + INTERVAL 1 HOUR)", storedKey, state,
					fence);
	}

	@Override
	String createSchemaStatement(String schema) {
		return "CREATE DATABASE " + schema;
	}

}
