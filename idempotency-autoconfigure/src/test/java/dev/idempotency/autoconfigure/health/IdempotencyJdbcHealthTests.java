package dev.idempotency.autoconfigure.health;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.idempotency.actuate.health.IdempotencyHealthIndicator;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.test.jdbc.DatabaseKind;
import dev.idempotency.test.jdbc.TestDatabase;
import dev.idempotency.test.jdbc.TestDatabases;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the idempotency health of the JDBC store on PostgreSQL and MariaDB: UP while
 * its table accepts writes, DOWN with the reason when the table is gone or the database
 * is read-only.
 */
class IdempotencyJdbcHealthTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class, JacksonAutoConfiguration.class,
				IdempotencyHealthContributorAutoConfiguration.class));

	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void upWhileTheTableAcceptsWritesAndDownWithHowToCreateItOnceDropped(DatabaseKind kind) throws SQLException {
		String table = newTable();
		try (HikariDataSource dataSource = TestDatabases.get(kind).createDatabase().dataSource(4)) {
			runner(dataSource, table).run((context) -> {
				IdempotencyHealthIndicator indicator = context.getBean(IdempotencyHealthIndicator.class);
				Health up = indicator.health();
				assertThat(up.getStatus()).isEqualTo(Status.UP);
				assertThat(up.getDetails()).containsEntry("store", "jdbc")
					.containsEntry("database", kind.label())
					.containsEntry("table", table)
					.doesNotContainKey("reason");
				execute(dataSource, "DROP TABLE " + table);
				Health down = indicator.health();
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat((String) down.getDetails().get("reason")).startsWith("table " + table + " does not exist")
					.contains("schema-" + ((kind == DatabaseKind.POSTGRESQL) ? "postgresql" : "mariadb") + ".sql")
					.contains("idempotency.jdbc.initialize-schema=always");
			});
		}
	}

	@Test
	void downOnAReadOnlyPostgresDatabase() throws SQLException {
		String table = newTable();
		TestDatabase database = TestDatabases.postgres().createDatabase();
		try (HikariDataSource dataSource = database.dataSource(2)) {
			runner(dataSource, table).run((context) -> assertThat(context).hasNotFailed());
			String name = database.url().replaceAll("^.*/([^/?]+).*$", "$1");
			execute(dataSource, "ALTER DATABASE " + name + " SET default_transaction_read_only = on");
		}
		// New connections see the setting
		try (HikariDataSource dataSource = database.dataSource(2)) {
			runner(dataSource, table).withPropertyValues("idempotency.jdbc.initialize-schema=never").run((context) -> {
				Health health = context.getBean(IdempotencyHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat((String) health.getDetails().get("reason")).contains("read-only");
			});
		}
	}

	private ApplicationContextRunner runner(DataSource dataSource, String table) {
		return this.contextRunner
			.withBean(DataSource.class, () -> dataSource, (definition) -> definition.setDestroyMethodName(""))
			.withPropertyValues("idempotency.store=jdbc", "idempotency.jdbc.table=" + table,
					"idempotency.jdbc.initialize-schema=always");
	}

	private static void execute(DataSource dataSource, String sql) throws SQLException {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
	}

	private static String newTable() {
		return "idem_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
	}

}
