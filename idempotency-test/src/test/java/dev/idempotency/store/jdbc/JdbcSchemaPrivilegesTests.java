package dev.idempotency.store.jdbc;

import java.time.Duration;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.RecordKey;
import dev.idempotency.test.jdbc.DatabaseKind;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link JdbcSchema#initialize} run as an application's user that may read and write the
 * store's table but not create tables, as PostgreSQL 15 has it in {@code public} by
 * default and as production grants often are: the existing table is used, a missing one
 * is a clear failure.
 */
class JdbcSchemaPrivilegesTests {

	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void aUserWhoCannotCreateTablesUsesTheExistingTable(DatabaseKind kind) {
		String table = "idem_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		try (StoreDatabase database = StoreDatabase.create(kind, 2)) {
			JdbcSchema.initialize(database.dataSource(), table);
			String user = createRowsOnlyUser(database, table);
			try (Dropped dropped = () -> dropUser(database, user);
					HikariDataSource restricted = database.newDataSource(2, (config) -> {
						config.setUsername(user);
						config.setPassword("");
					})) {
				JdbcSchema.initialize(restricted, table);
				AcquireResult result = new JdbcIdempotencyStore(restricted, table).acquire(new RecordKey("pay", "k-1"),
						new AcquireRequest("owner-1", Duration.ofSeconds(5), Duration.ofMinutes(1), null));
				assertThat(result).isInstanceOf(Acquired.class);
				assertThatIllegalStateException().isThrownBy(() -> JdbcSchema.initialize(restricted, table + "_x"))
					.withMessageStartingWith(
							"Could not create the idempotency table " + table + "_x on " + kind.label());
			}
		}
	}

	private static String createRowsOnlyUser(StoreDatabase database, String table) {
		String user = "idem_rows_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
		JdbcTemplate admin = database.jdbc();
		if (database.kind() == DatabaseKind.POSTGRESQL) {
			admin.execute("CREATE ROLE " + user + " LOGIN");
			admin.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
			admin.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON " + table + " TO " + user);
		}
		else {
			String schema = admin.queryForObject("SELECT DATABASE()", String.class);
			admin.execute("CREATE USER '" + user + "'@'%'");
			admin.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON " + schema + "." + table + " TO '" + user + "'@'%'");
		}
		return user;
	}

	// Roles outlive the test's database on PostgreSQL, users on MariaDB
	private static void dropUser(StoreDatabase database, String user) {
		JdbcTemplate admin = database.jdbc();
		if (database.kind() == DatabaseKind.POSTGRESQL) {
			admin.execute("DROP OWNED BY " + user);
			admin.execute("DROP ROLE " + user);
		}
		else {
			admin.execute("DROP USER '" + user + "'@'%'");
		}
	}

	private interface Dropped extends AutoCloseable {

		@Override
		void close();

	}

}
