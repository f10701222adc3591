package dev.idempotency.autoconfigure;

import java.sql.SQLException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.jdbc.DatabaseKind;
import dev.idempotency.test.jdbc.TestDatabases;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with {@code idempotency.store=jdbc} on each database the store runs on:
 * the table is created at startup, and an {@code @Idempotent} method runs once for its
 * duplicates, whose record is a row of that table.
 */
class IdempotencyJdbcStoreDatabasesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(CountingPayments.PaymentsConfiguration.class);

	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void idempotentMethodRunsOnceForItsDuplicates(DatabaseKind kind) throws SQLException {
		String table = IdempotencyJdbcStoreConfigurationTests.newTable();
		try (HikariDataSource dataSource = TestDatabases.get(kind).createDatabase().dataSource(4)) {
			this.contextRunner
				.withBean(DataSource.class, () -> dataSource, (definition) -> definition.setDestroyMethodName(""))
				.withPropertyValues("idempotency.store=jdbc", "idempotency.jdbc.table=" + table,
						"idempotency.jdbc.initialize-schema=always")
				.run((context) -> {
					CountingPayments payments = context.getBean(CountingPayments.class);
					CountingPayments.Receipt first = payments.pay("p-1");
					assertThat(payments.pay("p-1")).isEqualTo(first);
					assertThat(payments.pay("p-1")).isEqualTo(first);
					assertThat(payments.runs()).isOne();
					assertThat(JdbcRecordCleanupTests.keys(kind, dataSource, table))
						.containsExactly("CountingPayments.pay:p-1");
					assertThat(context.getBean(IdempotencyStore.class))
						.hasToString("JDBC store on " + kind.label() + ", table " + table);
				});
		}
	}

}
